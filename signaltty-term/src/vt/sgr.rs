//! SGR (`CSI … m`): applying a parameter list to the pen. Both the `;` form (`38;5;n`) and the
//! `:` sub-parameter form (`38:2::r:g:b`) of extended colours are understood; unknown or
//! malformed parameters are skipped, never fatal.

use super::cell::{Attr, Color, Style};

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
            // `4:0` turns underline off; any other style (curly, dotted…) is underline.
            4 => pen.set(Attr::Underline, param.get(1) != Some(&0)),
            // Rapid blink (6) is drawn as blink by the terminals that draw either.
            5 | 6 => pen.set(Attr::Blink, true),
            7 => pen.set(Attr::Inverse, true),
            8 => pen.set(Attr::Hidden, true),
            9 => pen.set(Attr::Strikethrough, true),
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
            30..=37 => pen.set_fg(Color::Idx((code - 30) as u8)),
            39 => pen.set_fg(Color::Default),
            40..=47 => pen.set_bg(Color::Idx((code - 40) as u8)),
            49 => pen.set_bg(Color::Default),
            90..=97 => pen.set_fg(Color::Idx((code - 90 + 8) as u8)),
            100..=107 => pen.set_bg(Color::Idx((code - 100 + 8) as u8)),
            38 | 48 => {
                let color = if param.len() > 1 {
                    extended_colon(&param[1..])
                } else {
                    extended_semicolon(&mut iter)
                };
                if let Some(color) = color {
                    if code == 38 {
                        pen.set_fg(color);
                    } else {
                        pen.set_bg(color);
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

/// `38;5;n` or `38;2;r;g;b`: the colour's values are the following parameters.
fn extended_semicolon<'a>(iter: &mut impl Iterator<Item = &'a [u16]>) -> Option<Color> {
    let mut next = || iter.next().map(|p| p[0]);
    match next()? {
        5 => Some(Color::Idx(byte(next()?)?)),
        2 => {
            let (r, g, b) = (next()?, next()?, next()?);
            Some(Color::Rgb(byte(r)?, byte(g)?, byte(b)?))
        }
        _ => None,
    }
}
