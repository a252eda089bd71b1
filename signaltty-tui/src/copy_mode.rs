//! Copy mode (tmux's `[`): a cursor over one pane's whole history, drawn in place of the pane
//! (`view/copy_mode.rs`), with vi or emacs movement, character / line / block selection, search
//! both ways with every match on screen highlighted, and a yank that goes to the outer
//! terminal's clipboard (OSC 52, which passes through tmux and ssh) and to the paste buffer
//! that `]` types into a pane (bracketed when its program asked).
//!
//! The history is the server's (`ReadPane` in scrollback mode: every line that scrolled off,
//! then the screen down to its cursor), read once when copy mode opens: a program on the
//! alternate screen, or one that cleared its screen, still has its history here, and output
//! arriving meanwhile does not move what the user is selecting (as in tmux, the pane is frozen
//! until copy mode ends).
//!
//! Positions are (line, column) with columns counted in characters of the line's plain text
//! (what `styled::parse` made of the line's cells), so the motions, the search and the yanked
//! text agree with each other; the view turns columns into cells.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseEvent, MouseEventKind};

use crate::app::{App, Effect, Field};
use crate::styled::StyledLine;
use crate::tui_options::CopyKeys;

pub use crate::copy_state::{CopyMode, Dir, Point, SelectKind};

/// What a key did to copy mode.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Still open.
    Stay,
    /// Closed.
    Leave,
}

impl CopyMode {
    /// Copy mode over `pane_id`, waiting for its history; the cursor will start at the pane's
    /// cursor column on the last line (the server's capture ends at the cursor's row).
    pub fn open(pane_id: String, keys: CopyKeys, start_col: usize) -> CopyMode {
        CopyMode {
            pane_id,
            keys,
            start_col,
            ..CopyMode::default()
        }
    }

    /// The history arrived: the view starts where the pane was, `height` rows tall.
    pub fn load(&mut self, lines: Vec<String>, styled: Vec<StyledLine>, height: usize) {
        self.lines = lines;
        self.styled = styled;
        self.loaded = true;
        let last = self.lines.len().saturating_sub(1);
        self.cursor = Point {
            line: last,
            col: self.start_col,
        };
        self.clamp_col();
        self.top = self.lines.len().saturating_sub(height.max(1));
    }

    fn len_of(&self, line: usize) -> usize {
        self.lines.get(line).map_or(0, |l| l.chars().count())
    }

    fn last_line(&self) -> usize {
        self.lines.len().saturating_sub(1)
    }

    /// The character at a point; a line's end (and beyond) reads as a space.
    fn char_at(&self, p: Point) -> char {
        self.lines
            .get(p.line)
            .and_then(|l| l.chars().nth(p.col))
            .unwrap_or(' ')
    }

    fn clamp_col(&mut self) {
        let max = self.len_of(self.cursor.line).saturating_sub(1);
        self.cursor.col = self.cursor.col.min(max);
    }

    /// Keeps the cursor's line on screen.
    fn follow(&mut self, height: usize) {
        let height = height.max(1);
        if self.cursor.line < self.top {
            self.top = self.cursor.line;
        } else if self.cursor.line >= self.top + height {
            self.top = self.cursor.line + 1 - height;
        }
        self.top = self.top.min(self.lines.len().saturating_sub(height));
    }

    /// Scrolls the view by `delta` lines (positive: towards the newest), keeping the cursor in
    /// it, as the wheel and `C-e`/`C-y` do.
    pub fn scroll(&mut self, delta: isize, height: usize) {
        let height = height.max(1);
        let max_top = self.lines.len().saturating_sub(height);
        self.top = self.top.saturating_add_signed(delta).min(max_top);
        self.cursor.line = self
            .cursor
            .line
            .clamp(self.top, (self.top + height - 1).min(self.last_line()));
        self.clamp_col();
    }

    fn move_lines(&mut self, delta: isize) {
        self.cursor.line = self
            .cursor
            .line
            .saturating_add_signed(delta)
            .min(self.last_line());
        self.clamp_col();
    }

    /// The next position in reading order (a line's end counts as one position).
    fn step(&self, p: Point) -> Option<Point> {
        if p.col < self.len_of(p.line) {
            Some(Point {
                line: p.line,
                col: p.col + 1,
            })
        } else if p.line < self.last_line() {
            Some(Point {
                line: p.line + 1,
                col: 0,
            })
        } else {
            None
        }
    }

    fn step_back(&self, p: Point) -> Option<Point> {
        if p.col > 0 {
            Some(Point {
                line: p.line,
                col: p.col - 1,
            })
        } else if p.line > 0 {
            Some(Point {
                line: p.line - 1,
                col: self.len_of(p.line - 1),
            })
        } else {
            None
        }
    }

    /// vi's `w` (emacs `M-f` stops at the word's end instead: `end`).
    fn word_forward(&mut self) {
        let mut p = self.cursor;
        let start = class(self.char_at(p));
        while let Some(n) = self.step(p) {
            p = n;
            if class(self.char_at(p)) != start || p.col == 0 {
                break;
            }
        }
        while class(self.char_at(p)) == Class::Blank {
            match self.step(p) {
                Some(n) => p = n,
                None => break,
            }
        }
        self.cursor = p;
        self.clamp_col();
    }

    /// vi's `b`, emacs `M-b`.
    fn word_back(&mut self) {
        let mut p = self.cursor;
        let Some(mut q) = self.step_back(p) else {
            return;
        };
        while class(self.char_at(q)) == Class::Blank {
            match self.step_back(q) {
                Some(n) => q = n,
                None => break,
            }
        }
        p = q;
        let c = class(self.char_at(p));
        while let Some(n) = self.step_back(p) {
            if n.line != p.line || class(self.char_at(n)) != c {
                break;
            }
            p = n;
        }
        self.cursor = p;
        self.clamp_col();
    }

    /// vi's `e`: the last character of this or the next word.
    fn word_end(&mut self) {
        let Some(mut p) = self.step(self.cursor) else {
            return;
        };
        while class(self.char_at(p)) == Class::Blank {
            match self.step(p) {
                Some(n) => p = n,
                None => break,
            }
        }
        let c = class(self.char_at(p));
        while let Some(n) = self.step(p) {
            if n.line != p.line || class(self.char_at(n)) != c {
                break;
            }
            p = n;
        }
        self.cursor = p;
        self.clamp_col();
    }

    fn first_non_blank(&mut self) {
        let line = self.lines.get(self.cursor.line).map_or("", String::as_str);
        self.cursor.col = line.chars().take_while(|c| c.is_whitespace()).count();
        self.clamp_col();
    }

    /// Starts (or switches the kind of, or ends when the same kind is asked again) a selection.
    fn select(&mut self, kind: SelectKind) {
        self.anchor = match self.anchor {
            Some((_, k)) if k == kind => None,
            Some((p, _)) => Some((p, kind)),
            None => Some((self.cursor, kind)),
        };
    }

    /// Whether a cell of the history is selected.
    pub fn selected(&self, p: Point) -> bool {
        let Some((anchor, kind)) = self.anchor else {
            return false;
        };
        let (a, b) = ordered(anchor, self.cursor);
        match kind {
            SelectKind::Char => p >= a && p <= b,
            SelectKind::Line => (a.line..=b.line).contains(&p.line),
            SelectKind::Block => {
                let (l, r) = (
                    anchor.col.min(self.cursor.col),
                    anchor.col.max(self.cursor.col),
                );
                (a.line..=b.line).contains(&p.line) && (l..=r).contains(&p.col)
            }
        }
    }

    /// The selected text (lines joined by `\n`); none without a selection.
    pub fn selection_text(&self) -> Option<String> {
        let (anchor, kind) = self.anchor?;
        let (a, b) = ordered(anchor, self.cursor);
        let mut out = Vec::new();
        for line in a.line..=b.line {
            let chars: Vec<char> = self
                .lines
                .get(line)
                .map_or(Vec::new(), |l| l.chars().collect());
            let (from, to) = match kind {
                SelectKind::Line => (0, chars.len()),
                SelectKind::Block => {
                    let l = anchor.col.min(self.cursor.col);
                    let r = anchor.col.max(self.cursor.col);
                    (l, r + 1)
                }
                SelectKind::Char => {
                    let from = if line == a.line { a.col } else { 0 };
                    let to = if line == b.line {
                        b.col + 1
                    } else {
                        chars.len()
                    };
                    (from, to)
                }
            };
            let (from, to) = (from.min(chars.len()), to.min(chars.len()));
            let text: String = chars[from..to.max(from)].iter().collect();
            out.push(text.trim_end().to_owned());
        }
        Some(out.join("\n"))
    }

    /// Moves the cursor to the next match of the last search (`reverse`: the other way).
    pub fn find(&mut self, reverse: bool) -> bool {
        let Some((needle, dir)) = self.search.clone() else {
            return false;
        };
        let dir = match (dir, reverse) {
            (d, false) => d,
            (Dir::Forward, true) => Dir::Backward,
            (Dir::Backward, true) => Dir::Forward,
        };
        let n = self.lines.len();
        if n == 0 || needle.is_empty() {
            return false;
        }
        let here = self.cursor;
        // Every line once, starting with the cursor's, wrapping around the ends.
        for i in 0..=n {
            let line = match dir {
                Dir::Forward => (here.line + i) % n,
                Dir::Backward => (here.line + n * 2 - i) % n,
            };
            let hits = matches(&self.lines[line], &needle);
            let hit = match dir {
                Dir::Forward => hits
                    .iter()
                    .find(|(c, _)| i > 0 || *c > here.col)
                    .or_else(|| hits.first().filter(|_| i == n)),
                Dir::Backward => hits
                    .iter()
                    .rev()
                    .find(|(c, _)| i > 0 || *c < here.col)
                    .or_else(|| hits.last().filter(|_| i == n)),
            };
            if let Some((col, _)) = hit {
                self.cursor = Point { line, col: *col };
                return true;
            }
        }
        false
    }
}

#[derive(PartialEq, Eq, Clone, Copy)]
enum Class {
    Blank,
    Word,
    Punct,
}

fn class(c: char) -> Class {
    if c.is_whitespace() {
        Class::Blank
    } else if c.is_alphanumeric() || c == '_' {
        Class::Word
    } else {
        Class::Punct
    }
}

fn ordered(a: Point, b: Point) -> (Point, Point) {
    if a <= b { (a, b) } else { (b, a) }
}

/// Where `needle` occurs in `line`: (first column, length) in characters. Smart case: a needle
/// without capitals matches any case (ASCII), as in vim with `smartcase` and less's `-i`.
pub fn matches(line: &str, needle: &str) -> Vec<(usize, usize)> {
    if needle.is_empty() {
        return Vec::new();
    }
    let fold = !needle.chars().any(char::is_uppercase);
    let (hay, needle) = if fold {
        (line.to_ascii_lowercase(), needle.to_ascii_lowercase())
    } else {
        (line.to_owned(), needle.to_owned())
    };
    let len = needle.chars().count();
    hay.match_indices(&needle)
        .map(|(byte, _)| (hay[..byte].chars().count(), len))
        .collect()
}

/// The rows of the pane's content as drawn now (copy mode takes the pane's place).
pub fn height(app: &App, pane_id: &str) -> usize {
    area(app, pane_id).map_or(1, |r| usize::from(r.height.max(1)))
}

/// The pane's content rectangle, when it is on screen.
pub fn area(app: &App, pane_id: &str) -> Option<crate::geometry::Rect> {
    let (_, placement) = crate::regions::placement(app)?;
    placement
        .panes
        .iter()
        .find(|p| p.pane_id == pane_id)
        .map(|p| crate::regions::content(p.rect))
}

/// Opens copy mode over a pane (its history is asked for by the caller).
pub fn open(app: &App, pane_id: String) -> CopyMode {
    let col = app
        .screens
        .get(&pane_id)
        .map_or(0, |s| usize::from(s.cursor_position().1));
    CopyMode::open(pane_id, app.keymap.options.copy_keys, col)
}

/// Handles a key; returns whether copy mode stays open.
pub fn on_key(app: &mut App, mode: &mut CopyMode, key: KeyEvent, fx: &mut Vec<Effect>) -> Outcome {
    let height = height(app, &mode.pane_id);
    if let Some((dir, mut field)) = mode.prompt.take() {
        match key.code {
            KeyCode::Esc => {}
            KeyCode::Char('c' | 'g') if key.modifiers.contains(KeyModifiers::CONTROL) => {}
            KeyCode::Enter => {
                if !field.text.is_empty() {
                    mode.search = Some((field.text, dir));
                }
                if !mode.find(false) && mode.search.is_some() {
                    app.toast("not found", std::time::Instant::now());
                }
                mode.follow(height);
            }
            _ => {
                crate::field::edit(&mut field, &key);
                mode.prompt = Some((dir, field));
            }
        }
        return Outcome::Stay;
    }
    if !mode.loaded {
        // Nothing to move over yet: only leaving means something.
        return match key.code {
            KeyCode::Esc | KeyCode::Char('q') => Outcome::Leave,
            _ => Outcome::Stay,
        };
    }
    let outcome = match mode.keys {
        CopyKeys::Vi => vi_key(mode, key, height),
        CopyKeys::Emacs => emacs_key(mode, key, height),
    };
    let outcome = match outcome {
        Some(Act::Yank) => {
            yank(app, mode, fx);
            Outcome::Leave
        }
        Some(Act::Leave) => Outcome::Leave,
        Some(Act::Stay) | None => Outcome::Stay,
    };
    if outcome == Outcome::Stay {
        mode.follow(height);
    }
    outcome
}

enum Act {
    Stay,
    Yank,
    Leave,
}

/// Keys both styles share: arrows, pages, Home/End, `q`, `n`/`N`.
fn common_key(mode: &mut CopyMode, key: &KeyEvent, height: usize) -> Option<Act> {
    let page = height.max(2) as isize - 1;
    match key.code {
        KeyCode::Left => mode.cursor.col = mode.cursor.col.saturating_sub(1),
        KeyCode::Right => {
            mode.cursor.col += 1;
            mode.clamp_col();
        }
        KeyCode::Up => mode.move_lines(-1),
        KeyCode::Down => mode.move_lines(1),
        KeyCode::PageUp => mode.move_lines(-page),
        KeyCode::PageDown => mode.move_lines(page),
        KeyCode::Home => mode.cursor.col = 0,
        KeyCode::End => {
            mode.cursor.col = usize::MAX;
            mode.clamp_col();
        }
        KeyCode::Char('q') if key.modifiers.is_empty() => return Some(Act::Leave),
        KeyCode::Char('n') if key.modifiers.is_empty() => {
            mode.find(false);
        }
        KeyCode::Char('N') => {
            mode.find(true);
        }
        _ => return None,
    }
    Some(Act::Stay)
}

fn vi_key(mode: &mut CopyMode, key: KeyEvent, height: usize) -> Option<Act> {
    if let Some(act) = common_key(mode, &key, height) {
        return Some(act);
    }
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let half = (height / 2).max(1) as isize;
    let page = height.max(2) as isize - 1;
    match key.code {
        KeyCode::Char('u') if ctrl => mode.move_lines(-half),
        KeyCode::Char('d') if ctrl => mode.move_lines(half),
        KeyCode::Char('b') if ctrl => mode.move_lines(-page),
        KeyCode::Char('f') if ctrl => mode.move_lines(page),
        KeyCode::Char('y') if ctrl => mode.scroll(-1, height),
        KeyCode::Char('e') if ctrl => mode.scroll(1, height),
        KeyCode::Char('v') if ctrl => mode.select(SelectKind::Block),
        KeyCode::Char('c') if ctrl => return Some(Act::Leave),
        _ if ctrl => return None,
        KeyCode::Char('h') | KeyCode::Backspace => {
            mode.cursor.col = mode.cursor.col.saturating_sub(1);
        }
        KeyCode::Char('l') => {
            mode.cursor.col += 1;
            mode.clamp_col();
        }
        KeyCode::Char('k') => mode.move_lines(-1),
        KeyCode::Char('j') => mode.move_lines(1),
        KeyCode::Char('w' | 'W') => mode.word_forward(),
        KeyCode::Char('b' | 'B') => mode.word_back(),
        KeyCode::Char('e' | 'E') => mode.word_end(),
        KeyCode::Char('0') => mode.cursor.col = 0,
        KeyCode::Char('^') => mode.first_non_blank(),
        KeyCode::Char('$') => {
            mode.cursor.col = usize::MAX;
            mode.clamp_col();
        }
        KeyCode::Char('g') => {
            mode.cursor = Point::default();
            mode.top = 0;
        }
        KeyCode::Char('G') => {
            mode.cursor.line = mode.last_line();
            mode.clamp_col();
        }
        KeyCode::Char('H') => {
            mode.cursor.line = mode.top;
            mode.clamp_col();
        }
        KeyCode::Char('M') => {
            let bottom = (mode.top + height.saturating_sub(1)).min(mode.last_line());
            mode.cursor.line = (mode.top + bottom) / 2;
            mode.clamp_col();
        }
        KeyCode::Char('L') => {
            mode.cursor.line = (mode.top + height.saturating_sub(1)).min(mode.last_line());
            mode.clamp_col();
        }
        KeyCode::Char('v' | ' ') => mode.select(SelectKind::Char),
        KeyCode::Char('V') => mode.select(SelectKind::Line),
        KeyCode::Char('r') => {
            // tmux's rectangle-toggle on the selection being made.
            if let Some((p, kind)) = mode.anchor {
                let kind = if kind == SelectKind::Block {
                    SelectKind::Char
                } else {
                    SelectKind::Block
                };
                mode.anchor = Some((p, kind));
            }
        }
        KeyCode::Char('/') => mode.prompt = Some((Dir::Forward, Field::default())),
        KeyCode::Char('?') => mode.prompt = Some((Dir::Backward, Field::default())),
        KeyCode::Char('y') | KeyCode::Enter => return Some(Act::Yank),
        KeyCode::Esc => {
            if mode.anchor.take().is_none() {
                return Some(Act::Leave);
            }
        }
        _ => return None,
    }
    Some(Act::Stay)
}

fn emacs_key(mode: &mut CopyMode, key: KeyEvent, height: usize) -> Option<Act> {
    if let Some(act) = common_key(mode, &key, height) {
        return Some(act);
    }
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let alt = key.modifiers.contains(KeyModifiers::ALT);
    let page = height.max(2) as isize - 1;
    match key.code {
        KeyCode::Char('f') if ctrl => {
            mode.cursor.col += 1;
            mode.clamp_col();
        }
        KeyCode::Char('b') if ctrl => mode.cursor.col = mode.cursor.col.saturating_sub(1),
        KeyCode::Char('n') if ctrl => mode.move_lines(1),
        KeyCode::Char('p') if ctrl => mode.move_lines(-1),
        KeyCode::Char('a') if ctrl => mode.cursor.col = 0,
        KeyCode::Char('e') if ctrl => {
            mode.cursor.col = usize::MAX;
            mode.clamp_col();
        }
        KeyCode::Char('v') if ctrl => mode.move_lines(page),
        KeyCode::Char('v') if alt => mode.move_lines(-page),
        KeyCode::Char('f') if alt => mode.word_end(),
        KeyCode::Char('b') if alt => mode.word_back(),
        KeyCode::Char('m') if alt => mode.first_non_blank(),
        KeyCode::Char('<') if alt => {
            mode.cursor = Point::default();
            mode.top = 0;
        }
        KeyCode::Char('>') if alt => {
            mode.cursor.line = mode.last_line();
            mode.clamp_col();
        }
        KeyCode::Char(' ' | '@') if ctrl => mode.select(SelectKind::Char),
        KeyCode::Char('s') if ctrl => mode.prompt = Some((Dir::Forward, Field::default())),
        KeyCode::Char('r') if ctrl => mode.prompt = Some((Dir::Backward, Field::default())),
        KeyCode::Char('w') if alt || ctrl => return Some(Act::Yank),
        KeyCode::Char('g') if ctrl => {
            if mode.anchor.take().is_none() {
                return Some(Act::Leave);
            }
        }
        KeyCode::Char('R') if !ctrl && !alt => {
            if let Some((p, kind)) = mode.anchor {
                let kind = if kind == SelectKind::Block {
                    SelectKind::Char
                } else {
                    SelectKind::Block
                };
                mode.anchor = Some((p, kind));
            } else {
                mode.anchor = Some((mode.cursor, SelectKind::Block));
            }
        }
        KeyCode::Esc => return Some(Act::Leave),
        KeyCode::Enter => return Some(Act::Yank),
        _ => return None,
    }
    Some(Act::Stay)
}

/// Copies the selection to the outer clipboard (OSC 52) and the paste buffer.
fn yank(app: &mut App, mode: &CopyMode, fx: &mut Vec<Effect>) {
    let now = std::time::Instant::now();
    match mode.selection_text() {
        Some(text) if !text.is_empty() => {
            app.toast(format!("copied {} characters", text.chars().count()), now);
            app.paste_buffer = Some(text.clone());
            fx.push(Effect::Copy(text));
        }
        _ => app.toast("nothing selected (v starts a selection)", now),
    }
}

/// The mouse in copy mode: the wheel scrolls, a drag selects (past the pane's top or bottom
/// edge it scrolls on), the release copies and leaves, as tmux's default bindings do.
pub fn on_mouse(
    app: &mut App,
    mode: &mut CopyMode,
    mouse: &MouseEvent,
    fx: &mut Vec<Effect>,
) -> Outcome {
    let Some(area) = area(app, &mode.pane_id) else {
        return Outcome::Stay;
    };
    let height = usize::from(area.height.max(1));
    let point = |mode: &CopyMode| {
        let row = isize::try_from(mouse.row).unwrap_or(0) - isize::try_from(area.y).unwrap_or(0);
        let over = if row < 0 {
            row
        } else if row >= height as isize {
            row - height as isize + 1
        } else {
            0
        };
        let row = row.clamp(0, height as isize - 1) as usize;
        let line = (mode.top + row).min(mode.last_line());
        let x = mouse.column.saturating_sub(area.x);
        (
            Point {
                line,
                col: col_at(mode.lines.get(line).map_or("", String::as_str), x),
            },
            over,
        )
    };
    match mouse.kind {
        MouseEventKind::ScrollUp => mode.scroll(-3, height),
        MouseEventKind::ScrollDown => mode.scroll(3, height),
        MouseEventKind::Down(_) if mode.loaded => {
            let (p, _) = point(mode);
            mode.cursor = p;
            mode.anchor = None;
        }
        MouseEventKind::Drag(_) if mode.loaded => {
            let (p, over) = point(mode);
            if mode.anchor.is_none() {
                mode.anchor = Some((mode.cursor, SelectKind::Char));
            }
            if over != 0 {
                mode.scroll(over, height);
                let (p, _) = point(mode);
                mode.cursor = p;
            } else {
                mode.cursor = p;
            }
        }
        MouseEventKind::Up(_) if mode.anchor.is_some() => {
            yank(app, mode, fx);
            return Outcome::Leave;
        }
        _ => {}
    }
    Outcome::Stay
}

/// The character column drawn at cell `x` of a line.
pub fn col_at(line: &str, x: u16) -> usize {
    let mut cells = 0u16;
    for (i, c) in line.chars().enumerate() {
        let w = u16::try_from(unicode_width::UnicodeWidthChar::width(c).unwrap_or(0)).unwrap_or(1);
        if cells + w > x {
            return i;
        }
        cells += w;
    }
    line.chars().count().saturating_sub(1)
}

#[cfg(test)]
#[path = "copy_mode_tests.rs"]
mod tests;
