//! SGR (`CSI … m`): applying a parameter list to the pen. Both the `;` form (`38;5;n`) and the
//! `:` sub-parameter form (`38:2::r:g:b`) of extended colours are understood, for the
//! foreground (38), the background (48) and the underline (58); underline shapes (`4:0`–`4:5`,
//! `21` double), overline (53/55) too. Unknown or malformed parameters are skipped, never
//! fatal; an extended colour's numbers are consumed even when malformed, so they are never read
//! as attributes of their own.

use super::cell::{Attr, Color, Style, UnderlineStyle};

/// Applies SGR `params` (each with its `:` sub-parameters) to `pen`.
pub(super) fn apply(pen: &mut Style, params: &vte::Params) {
    let mut iter = params.iter();
    if params.is_empty() {
        *pen = Style::default();
        return;
    }
    while let Some(param) = iter.next() {
        let code = param[0];
        match code {
            0 => *pen = Style::default(),
            1 => pen.set(Attr::Bold, true),
            2 => pen.set(Attr::Dim, true),
            3 => pen.set(Attr::Italic, true),
            // `4:n` picks a shape (0 off, 1 single, 2 double, 3 curly, 4 dotted, 5 dashed);
            // an unknown shape is still an underline.
            4 => pen.set_underline_style(match param.get(1) {
                None => UnderlineStyle::Single,
                Some(&n) => UnderlineStyle::from_sgr(n).unwrap_or(UnderlineStyle::Single),
            }),
            // Rapid blink (6) is drawn as blink by the terminals that draw either.
            5 | 6 => pen.set(Attr::Blink, true),
            7 => pen.set(Attr::Inverse, true),
            8 => pen.set(Attr::Hidden, true),
            9 => pen.set(Attr::Strikethrough, true),
            // Double underline (ECMA-48, xterm, kitty, VTE, tmux), not "bold off" (Linux console).
            21 => pen.set_underline_style(UnderlineStyle::Double),
            22 => {
                pen.set(Attr::Bold, false);
                pen.set(Attr::Dim, false);
            }
            23 => pen.set(Attr::Italic, false),
            24 => pen.set(Attr::Underline, false),
            25 => pen.set(Attr::Blink, false),
            27 => pen.set(Attr::Inverse, false),
            28 => pen.set(Attr::Hidden, false),
            29 => pen.set(Attr::Strikethrough, false),
            53 => pen.set(Attr::Overline, true),
            55 => pen.set(Attr::Overline, false),
            59 => pen.set_underline_color(Color::Default),
            30..=37 => pen.set_fg(Color::Idx((code - 30) as u8)),
            39 => pen.set_fg(Color::Default),
            40..=47 => pen.set_bg(Color::Idx((code - 40) as u8)),
            49 => pen.set_bg(Color::Default),
            90..=97 => pen.set_fg(Color::Idx((code - 90 + 8) as u8)),
            100..=107 => pen.set_bg(Color::Idx((code - 100 + 8) as u8)),
            38 | 48 | 58 => {
                let color = if param.len() > 1 {
                    extended_colon(&param[1..])
                } else {
                    extended_semicolon(&mut iter)
                };
                if let Some(color) = color {
                    match code {
                        38 => pen.set_fg(color),
                        48 => pen.set_bg(color),
                        _ => pen.set_underline_color(color),
                    }
                }
            }
            _ => {}
        }
    }
}

fn byte(n: u16) -> Option<u8> {
    u8::try_from(n).ok()
}

/// `38:5:n`, `38:2:r:g:b` or `38:2:colourspace:r:g:b` (the part after `38`).
fn extended_colon(sub: &[u16]) -> Option<Color> {
    match sub {
        [5, n, ..] => Some(Color::Idx(byte(*n)?)),
        [2, _, r, g, b, ..] | [2, r, g, b] => Some(Color::Rgb(byte(*r)?, byte(*g)?, byte(*b)?)),
        _ => None,
    }
}

/// `38;5;n` or `38;2;r;g;b`: the colour's values are the following parameters, consumed
/// whether or not they make a colour (xterm does the same).
fn extended_semicolon<'a>(iter: &mut impl Iterator<Item = &'a [u16]>) -> Option<Color> {
    let mut next = || iter.next().map(|p| p[0]);
    match next()? {
        5 => Some(Color::Idx(byte(next()?)?)),
        2 => {
            let (r, g, b) = (next(), next(), next());
            Some(Color::Rgb(byte(r?)?, byte(g?)?, byte(b?)?))
        }
        _ => None,
    }
}
