//! `Cell` and `Style`: one character cell of the grid and its drawing attributes, packed into
//! 12 bytes (vt100's cells are 32). A grid of 80×24 filled cells is 23 KiB; rows only hold the
//! cells up to the last one written (see `Row`), so a pane that printed a prompt holds far less.
//!
//! Packing: each colour is a `u32` whose low 24 bits are the value (an index or RGB) and bits
//! 24–25 the kind; bits 26–31 of the foreground word and 26–27 of the background word carry the
//! on/off SGR attributes, bits 28–30 of the background word the underline's shape (double,
//! curly, dotted, dashed) and bit 31 overline. A character needs 21 bits, so bits 30–31 of a
//! cell's character word carry its wide-character flags. Nothing outside this file sees the
//! layout.
//!
//! The underline colour (SGR 58) does not fit: it is a third word of [`Style`] (the pen), and a
//! cell drawn with one keeps it in its row's side list (`Row`), as combining marks are kept —
//! editors colour a handful of cells that way (diagnostics), so no cell grows for it.

/// A colour as SGR sets it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Color {
    /// The terminal's default colour.
    #[default]
    Default,
    /// One of the 256 indexed colours (0–7 normal, 8–15 bright).
    Idx(u8),
    /// A 24-bit colour.
    Rgb(u8, u8, u8),
}

const KIND_SHIFT: u32 = 24;
const KIND_IDX: u32 = 1 << KIND_SHIFT;
const KIND_RGB: u32 = 2 << KIND_SHIFT;
const KIND_MASK: u32 = 3 << KIND_SHIFT;
const VALUE_MASK: u32 = 0x00ff_ffff;
const COLOR_MASK: u32 = KIND_MASK | VALUE_MASK;

impl Color {
    fn pack(self) -> u32 {
        match self {
            Self::Default => 0,
            Self::Idx(i) => KIND_IDX | u32::from(i),
            Self::Rgb(r, g, b) => KIND_RGB | u32::from(r) << 16 | u32::from(g) << 8 | u32::from(b),
        }
    }

    fn unpack(word: u32) -> Self {
        let [_, r, g, b] = (word & VALUE_MASK).to_be_bytes();
        match word & KIND_MASK {
            KIND_IDX => Self::Idx(b),
            KIND_RGB => Self::Rgb(r, g, b),
            _ => Self::Default,
        }
    }
}

/// An SGR attribute that is either on or off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Attr {
    Bold,
    Dim,
    Italic,
    Underline,
    Blink,
    Inverse,
    Hidden,
    Strikethrough,
    /// SGR 53 (55 turns it off).
    Overline,
}

/// Attribute bits of the background word (the rest are in the foreground word), the underline
/// shape and overline included.
const BG_ATTR_MASK: u32 = 0x3f << 26;

/// The underline's shape (`4:n` in SGR's sub-parameter form; `21` is double).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum UnderlineStyle {
    /// No underline.
    #[default]
    None,
    Single,
    Double,
    Curly,
    Dotted,
    Dashed,
}

const SHAPE_SHIFT: u32 = 28;
const SHAPE_MASK: u32 = 7 << SHAPE_SHIFT;

impl UnderlineStyle {
    /// The style for `4:n` (`None` for 0 and for numbers no terminal defines).
    pub fn from_sgr(n: u16) -> Option<Self> {
        Some(match n {
            0 => Self::None,
            1 => Self::Single,
            2 => Self::Double,
            3 => Self::Curly,
            4 => Self::Dotted,
            5 => Self::Dashed,
            _ => return None,
        })
    }

    /// The `n` of `4:n`.
    pub fn sgr_number(self) -> u8 {
        match self {
            Self::None => 0,
            Self::Single => 1,
            Self::Double => 2,
            Self::Curly => 3,
            Self::Dotted => 4,
            Self::Dashed => 5,
        }
    }

    /// Shapes other than single in the background word (single is the underline bit alone).
    fn shape_bits(self) -> u32 {
        match self {
            Self::None | Self::Single => 0,
            other => u32::from(other.sgr_number() - 1) << SHAPE_SHIFT,
        }
    }
}

impl Attr {
    /// Every attribute, in SGR code order.
    pub const ALL: [Self; 9] = [
        Self::Bold,
        Self::Dim,
        Self::Italic,
        Self::Underline,
        Self::Blink,
        Self::Inverse,
        Self::Hidden,
        Self::Strikethrough,
        Self::Overline,
    ];

    /// The SGR parameter that turns this attribute on.
    pub fn sgr_code(self) -> &'static str {
        match self {
            Self::Bold => "1",
            Self::Dim => "2",
            Self::Italic => "3",
            Self::Underline => "4",
            Self::Blink => "5",
            Self::Inverse => "7",
            Self::Hidden => "8",
            Self::Strikethrough => "9",
            Self::Overline => "53",
        }
    }

    /// Whether the bit is in the background word, and which bit.
    fn place(self) -> (bool, u32) {
        match self {
            Self::Bold => (false, 1 << 26),
            Self::Dim => (false, 1 << 27),
            Self::Italic => (false, 1 << 28),
            Self::Underline => (false, 1 << 29),
            Self::Inverse => (false, 1 << 30),
            Self::Blink => (false, 1 << 31),
            Self::Hidden => (true, 1 << 26),
            Self::Strikethrough => (true, 1 << 27),
            Self::Overline => (true, 1 << 31),
        }
    }
}

/// Colours and attributes of a cell; also the "pen" new characters are drawn with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Style {
    /// Foreground colour plus attribute bits.
    fg: u32,
    /// Background colour plus attribute bits and the underline shape.
    bg: u32,
    /// Underline colour (SGR 58), packed like the others; 0 is the default (the text's colour).
    ul: u32,
}

impl Style {
    /// The foreground colour.
    pub fn fg(self) -> Color {
        Color::unpack(self.fg)
    }

    /// The background colour.
    pub fn bg(self) -> Color {
        Color::unpack(self.bg)
    }

    /// The underline colour (`Default`: the foreground's).
    pub fn underline_color(self) -> Color {
        Color::unpack(self.ul)
    }

    /// Whether an underline colour is set (the printing fast path's check).
    #[inline]
    pub fn has_underline_color(self) -> bool {
        self.ul != 0
    }

    pub fn set_underline_color(&mut self, color: Color) {
        self.ul = color.pack();
    }

    /// The underline's shape; `None` when not underlined.
    pub fn underline_style(self) -> UnderlineStyle {
        if !self.has(Attr::Underline) {
            return UnderlineStyle::None;
        }
        match (self.bg & SHAPE_MASK) >> SHAPE_SHIFT {
            0 => UnderlineStyle::Single,
            n => UnderlineStyle::from_sgr((n + 1) as u16).unwrap_or(UnderlineStyle::Single),
        }
    }

    /// Sets the underline and its shape (`None` turns it off).
    pub fn set_underline_style(&mut self, style: UnderlineStyle) {
        self.set(Attr::Underline, style != UnderlineStyle::None);
        self.bg = (self.bg & !SHAPE_MASK) | style.shape_bits();
    }

    /// Whether `attr` is on (`Underline`: in any shape).
    pub fn has(self, attr: Attr) -> bool {
        let (in_bg, bit) = attr.place();
        let word = if in_bg { self.bg } else { self.fg };
        word & bit != 0
    }

    pub fn set_fg(&mut self, color: Color) {
        self.fg = (self.fg & !COLOR_MASK) | color.pack();
    }

    pub fn set_bg(&mut self, color: Color) {
        self.bg = (self.bg & !COLOR_MASK) | color.pack();
    }

    /// Turns `attr` on or off (`Underline` on is single, off drops its shape too).
    pub fn set(&mut self, attr: Attr, on: bool) {
        if attr == Attr::Underline {
            self.bg &= !SHAPE_MASK;
        }
        let (in_bg, bit) = attr.place();
        let word = if in_bg { &mut self.bg } else { &mut self.fg };
        if on {
            *word |= bit;
        } else {
            *word &= !bit;
        }
    }

    /// Whether this is the terminal's default look (no colour, no attribute).
    pub fn is_default(self) -> bool {
        self == Self::default()
    }

    /// The style an erase leaves behind: only the background colour survives (xterm's
    /// background-colour erase).
    pub fn erased(self) -> Self {
        Self {
            fg: 0,
            bg: self.bg & COLOR_MASK,
            ul: 0,
        }
    }
}

const WIDE: u32 = 1 << 30;
const WIDE_CONTINUATION: u32 = 1 << 31;
const CHAR_MASK: u32 = 0x1f_ffff;

/// One character cell. Its underline colour, if any, is in its row (`Row::style`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cell {
    /// The character (low 21 bits) and the width flags.
    ch: u32,
    /// Foreground word (colour + attributes).
    fg: u32,
    /// Background word (colour + attributes + underline shape).
    bg: u32,
}

/// Whether two runs of cells of the same length are equal. Compared in blocks with no early
/// exit inside a block, which the compiler turns into vector code: a client that paints only
/// what changed (`Row::changed_columns`) compares whole screens on every output chunk.
pub(super) fn same_cells(a: &[Cell], b: &[Cell]) -> bool {
    const BLOCK: usize = 16;
    if a.len() != b.len() {
        return false;
    }
    let (mut x, mut y) = (a.chunks_exact(BLOCK), b.chunks_exact(BLOCK));
    for (p, q) in (&mut x).zip(&mut y) {
        let mut differ = 0u32;
        for (c, d) in p.iter().zip(q) {
            differ |= (c.ch ^ d.ch) | (c.fg ^ d.fg) | (c.bg ^ d.bg);
        }
        if differ != 0 {
            return false;
        }
    }
    x.remainder() == y.remainder()
}

impl Default for Cell {
    fn default() -> Self {
        Self::blank(Style::default())
    }
}

impl Cell {
    /// A cell holding `ch` drawn in `style`.
    pub fn new(ch: char, style: Style) -> Self {
        Self {
            ch: u32::from(ch),
            fg: style.fg,
            bg: style.bg,
        }
    }

    /// An erased cell with `style`'s background.
    pub fn blank(style: Style) -> Self {
        Self::new(' ', style.erased())
    }

    /// The left half of a double-width character.
    pub fn wide(ch: char, style: Style) -> Self {
        let mut cell = Self::new(ch, style);
        cell.ch |= WIDE;
        cell
    }

    /// The right half of a double-width character (holds no text of its own).
    pub fn wide_continuation(style: Style) -> Self {
        let mut cell = Self::new(' ', style);
        cell.ch |= WIDE_CONTINUATION;
        cell
    }

    /// The character; a space for an erased cell.
    #[inline]
    pub fn ch(self) -> char {
        // Only `Cell::new` sets these bits, from a `char`.
        char::from_u32(self.ch & CHAR_MASK).unwrap_or(' ')
    }

    /// Colours and attributes; the underline colour is the row's ([`super::Row::style`]).
    pub fn style(self) -> Style {
        Style {
            fg: self.fg,
            bg: self.bg & (COLOR_MASK | BG_ATTR_MASK),
            ul: 0,
        }
    }

    pub fn is_wide(self) -> bool {
        self.ch & WIDE != 0
    }

    pub fn is_wide_continuation(self) -> bool {
        self.ch & WIDE_CONTINUATION != 0
    }

    /// Whether the cell is a single-width character without colour or attribute.
    #[inline]
    pub fn is_plain(self) -> bool {
        self.fg == 0 && self.bg == 0 && self.ch & (WIDE | WIDE_CONTINUATION) == 0
    }

    /// Whether the cell shows nothing: a space with no colour or attribute.
    pub fn is_default_blank(self) -> bool {
        self.ch == u32::from(' ') && self.fg == 0 && self.bg == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_and_attributes_round_trip() {
        let mut style = Style::default();
        for color in [
            Color::Default,
            Color::Idx(0),
            Color::Idx(255),
            Color::Rgb(1, 2, 3),
            Color::Rgb(255, 255, 255),
        ] {
            style.set_fg(color);
            style.set_bg(color);
            assert_eq!((style.fg(), style.bg()), (color, color));
        }
        style.set(Attr::Bold, true);
        style.set(Attr::Inverse, true);
        style.set_fg(Color::Idx(3));
        assert!(style.has(Attr::Bold) && style.has(Attr::Inverse) && !style.has(Attr::Dim));
        style.set(Attr::Bold, false);
        assert!(!style.has(Attr::Bold));
        assert_eq!(style.fg(), Color::Idx(3));
    }

    #[test]
    fn every_attribute_is_independent_of_the_others_and_of_the_colours() {
        for attr in Attr::ALL {
            let mut style = Style::default();
            style.set_fg(Color::Rgb(255, 255, 255));
            style.set_bg(Color::Rgb(255, 255, 255));
            style.set(attr, true);
            for other in Attr::ALL {
                assert_eq!(style.has(other), other == attr, "{attr:?} vs {other:?}");
            }
            style.set_bg(Color::Idx(1));
            style.set_fg(Color::Idx(2));
            assert!(style.has(attr), "{attr:?} lost to a colour change");
            let cell = Cell::wide('日', style);
            assert_eq!(cell.style(), style, "{attr:?} through a wide cell");
            assert!(cell.is_wide());
            assert!(Cell::blank(style).style().erased() == Cell::blank(style).style());
            assert!(
                !Cell::blank(style).style().has(attr),
                "{attr:?} survived an erase"
            );
            style.set(attr, false);
            assert_eq!(style.fg(), Color::Idx(2));
            assert_eq!(style.bg(), Color::Idx(1));
            assert!(Attr::ALL.iter().all(|a| !style.has(*a)));
        }
    }

    #[test]
    fn cells_are_compact_and_keep_their_style() {
        assert_eq!(std::mem::size_of::<Cell>(), 12);
        let mut style = Style::default();
        style.set_bg(Color::Rgb(9, 8, 7));
        style.set(Attr::Underline, true);
        let wide = Cell::wide('日', style);
        assert!(wide.is_wide() && !wide.is_wide_continuation());
        assert_eq!(wide.style(), style);
        let blank = Cell::blank(style);
        assert_eq!(blank.style().bg(), Color::Rgb(9, 8, 7));
        assert!(!blank.style().has(Attr::Underline));
        assert!(Cell::default().is_default_blank() && !blank.is_default_blank());
    }
}
