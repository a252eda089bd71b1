//! The vte `Perform` implementation: maps each control, escape and control sequence onto an
//! emulator operation (`edit.rs`). Anything not listed is ignored, as xterm ignores what it
//! does not know; DCS strings (sixel, tmux passthrough) are dropped.

use super::edit::AltScreen;
use super::reply::Query;
use super::{Charset, Emulator, Sink, sgr};

pub(super) struct Performer<'a, S> {
    pub(super) emu: &'a mut Emulator,
    pub(super) sink: &'a mut S,
}

/// Parameter `i` of a CSI sequence; 0 or missing means `default` (the VT convention).
fn param(params: &vte::Params, i: usize, default: u16) -> u16 {
    match params.iter().nth(i).map(|p| p[0]) {
        None | Some(0) => default,
        Some(n) => n,
    }
}

/// Parameter `i` as given, 0 when missing (for selectors such as ED's mode).
fn raw(params: &vte::Params, i: usize) -> u16 {
    params.iter().nth(i).map_or(0, |p| p[0])
}

impl<S: Sink> vte::Perform for Performer<'_, S> {
    fn print(&mut self, c: char) {
        self.emu.print(c, self.sink);
    }

    // Every action but `print` ends with `forget_last_char`: REP (`CSI b`) repeats only a
    // character printed right before it, as in xterm and tmux.

    fn execute(&mut self, byte: u8) {
        self.control(byte);
        self.emu.forget_last_char();
    }

    fn esc_dispatch(&mut self, intermediates: &[u8], ignore: bool, byte: u8) {
        self.escape(intermediates, ignore, byte);
        self.emu.forget_last_char();
    }

    fn csi_dispatch(
        &mut self,
        params: &vte::Params,
        intermediates: &[u8],
        ignore: bool,
        action: char,
    ) {
        self.control_sequence(params, intermediates, ignore, action);
        self.emu.forget_last_char();
    }

    fn osc_dispatch(&mut self, params: &[&[u8]], bell_terminated: bool) {
        self.operating_system_command(params, bell_terminated);
        self.emu.forget_last_char();
    }

    fn hook(&mut self, _params: &vte::Params, _intermediates: &[u8], _ignore: bool, _action: char) {
        self.emu.forget_last_char();
    }
}

impl<S: Sink> Performer<'_, S> {
    fn control(&mut self, byte: u8) {
        let emu = &mut *self.emu;
        match byte {
            0x08 => emu.backward(1),
            0x09 => emu.tab(1),
            0x0a..=0x0c | 0x84 => emu.linefeed(self.sink),
            0x0d => emu.carriage_return(),
            0x0e => emu.shift_out(true),
            0x0f => emu.shift_out(false),
            0x85 => {
                emu.carriage_return();
                emu.linefeed(self.sink);
            }
            0x8d => emu.reverse_index(),
            _ => {}
        }
    }

    fn escape(&mut self, intermediates: &[u8], _ignore: bool, byte: u8) {
        let emu = &mut *self.emu;
        match (intermediates, byte) {
            ([], b'7') => emu.save_cursor(),
            ([], b'8') => emu.restore_cursor(),
            ([], b'=') => emu.modes.application_keypad = true,
            ([], b'>') => emu.modes.application_keypad = false,
            ([], b'D') => emu.linefeed(self.sink),
            ([], b'E') => {
                emu.carriage_return();
                emu.linefeed(self.sink);
            }
            ([], b'M') => emu.reverse_index(),
            ([], b'c') => emu.reset(),
            // DECID, the VT100's older spelling of DA1.
            ([], b'Z') => self
                .sink
                .reply(emu.answer(Query::PrimaryAttributes).as_bytes()),
            ([], b'H') => emu.set_tab_stop(),
            ([b'#'], b'8') => emu.screen_alignment(),
            ([slot @ (b'(' | b')')], set) => {
                let charset = if set == b'0' {
                    Charset::DecGraphics
                } else {
                    Charset::Ascii
                };
                emu.set_charset(usize::from(*slot == b')'), charset);
            }
            _ => {}
        }
    }

    fn control_sequence(
        &mut self,
        params: &vte::Params,
        intermediates: &[u8],
        ignore: bool,
        action: char,
    ) {
        if ignore {
            // More parameters than vte keeps: the sequence is not what it claims to be.
            return;
        }
        if let Some(query) = Query::parse(intermediates, action, raw(params, 0))
            && params.len() <= 1
        {
            self.sink.reply(self.emu.answer(query).as_bytes());
            return;
        }
        let emu = &mut *self.emu;
        let p = |i, default| param(params, i, default);
        match (intermediates, action) {
            ([], '@') => emu.insert_chars(p(0, 1)),
            ([], 'A') => emu.up(p(0, 1)),
            ([], 'B' | 'e') => emu.down(p(0, 1)),
            ([], 'C' | 'a') => emu.forward(p(0, 1)),
            ([], 'D') => emu.backward(p(0, 1)),
            ([], 'E') => {
                emu.down(p(0, 1));
                emu.carriage_return();
            }
            ([], 'F') => {
                emu.up(p(0, 1));
                emu.carriage_return();
            }
            ([], 'G' | '`') => emu.goto_col(p(0, 1) - 1),
            ([], 'H' | 'f') => emu.goto(p(0, 1) - 1, p(1, 1) - 1),
            ([], 'I') => emu.tab(p(0, 1)),
            ([] | [b'?'], 'J') => match raw(params, 0) {
                3 => self.sink.clear_history(),
                mode => emu.erase_display(mode),
            },
            ([] | [b'?'], 'K') => emu.erase_line(raw(params, 0)),
            ([], 'L') => emu.insert_lines(p(0, 1)),
            ([], 'M') => emu.delete_lines(p(0, 1)),
            ([], 'P') => emu.delete_chars(p(0, 1)),
            ([], 'S') => emu.scroll_up(p(0, 1), self.sink),
            // `CSI T` with more parameters is xterm's mouse highlight tracking, not SD.
            ([], 'T') if params.len() <= 1 => emu.scroll_down(p(0, 1)),
            ([], 'X') => emu.erase_chars(p(0, 1)),
            ([], 'Z') => emu.back_tab(p(0, 1)),
            ([], 'b') => emu.repeat_last(p(0, 1), self.sink),
            ([], 'd') => emu.goto_row(p(0, 1) - 1),
            ([], 'g') => emu.clear_tab_stops(raw(params, 0)),
            ([], 'h' | 'l') if params.iter().any(|m| m[0] == 4) => {
                emu.modes.insert = action == 'h';
            }
            ([], 'm') => sgr::apply(&mut emu.pen, params),
            ([], 'r') => {
                let bottom = p(1, emu.rows);
                emu.set_region(p(0, 1) - 1, bottom.saturating_sub(1));
            }
            // SCOSC / SCORC. vte reports one (empty) parameter for `CSI s`; with parameters
            // `CSI s` is DECSLRM (left/right margins, not modelled). The kitty keyboard
            // sequences `CSI ? u`, `CSI > u`, `CSI = u`, `CSI < u` have an intermediate and
            // are matched below.
            ([], 's') if params.len() <= 1 && raw(params, 0) == 0 => emu.save_cursor(),
            ([], 'u') if params.len() <= 1 && raw(params, 0) == 0 => emu.restore_cursor(),
            ([b'!'], 'p') => emu.soft_reset(),
            ([b'?'], 'h' | 'l') => {
                let on = action == 'h';
                for mode in params.iter().map(|m| m[0]) {
                    private_mode(emu, mode, on);
                }
            }
            ([b'>'], 'm') if raw(params, 0) == 4 => {
                emu.keyboard.set_modify_other_keys(raw(params, 1))
            }
            ([b'>'], 'n') if raw(params, 0) == 4 => emu.keyboard.set_modify_other_keys(0),
            ([b'>'], 'u') => emu.keyboard.push(emu.screen(), raw(params, 0)),
            ([b'<'], 'u') => emu.keyboard.pop(emu.screen(), p(0, 1)),
            ([b'='], 'u') => emu.keyboard.set(emu.screen(), raw(params, 0), p(1, 1)),
            ([b' '], 'q') => {
                if let Ok(style @ 0..=6) = u8::try_from(raw(params, 0)) {
                    emu.modes.cursor_style = style;
                }
            }
            _ => {}
        }
    }

    fn operating_system_command(&mut self, params: &[&[u8]], _bell_terminated: bool) {
        // vte splits OSC text at `;`, so a title containing `;` arrives in pieces.
        if let [b"0" | b"1" | b"2", title @ ..] = params
            && !title.is_empty()
        {
            self.sink.title(&title.join(&b';'));
        }
    }
}

fn private_mode(emu: &mut Emulator, mode: u16, on: bool) {
    let alt = match mode {
        47 => Some(AltScreen::Plain),
        1047 => Some(AltScreen::ClearOnExit),
        1049 => Some(AltScreen::SaveCursor),
        _ => None,
    };
    match (alt, on) {
        (Some(how), true) => emu.enter_alt(how),
        (Some(how), false) => emu.leave_alt(how),
        (None, _) if mode == 6 => emu.set_origin(on),
        (None, _) => emu.modes.set_private(mode, on),
    }
}
