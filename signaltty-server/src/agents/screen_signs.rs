//! What an agent's own screen says before its first hook. Hooks are the truth about an agent,
//! but Claude's folder-trust dialog and Codex's "Hooks need review" dialog come before any hook
//! runs (the agent will not run hooks until they are answered), and Codex runs none until the
//! first prompt: without a look at the screen such a pane reads `unknown` while the agent waits
//! on the user. So, and only while no hook has spoken for the pane, the server reads the screen
//! for a few fixed phrases of the agent's own start-up screens (checked against the pinned
//! versions of the real-agent suites). Nothing else is ever inferred from the screen.

use crate::model::agent_kind::AgentKind;
use crate::model::lifecycle::{Attention, Lifecycle};

/// What a start-up screen means for the pane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScreenSign {
    /// The lifecycle it shows.
    pub lifecycle: Lifecycle,
    /// The attention it asks for.
    pub attention: Attention,
    /// The pane's message while it shows.
    pub message: &'static str,
}

/// A phrase of an agent's start-up screen and what it means.
struct Phrase {
    kind: AgentKind,
    text: &'static str,
    sign: ScreenSign,
}

const CLAUDE_TRUST: ScreenSign = ScreenSign {
    lifecycle: Lifecycle::Blocked,
    attention: Attention::InputRequired,
    message: "Claude asks whether to trust this folder",
};

const CODEX_TRUST: ScreenSign = ScreenSign {
    lifecycle: Lifecycle::Blocked,
    attention: Attention::InputRequired,
    message: "Codex asks whether to trust this folder",
};

const HOOK_REVIEW: ScreenSign = ScreenSign {
    lifecycle: Lifecycle::Blocked,
    attention: Attention::InputRequired,
    message: "Codex asks to review its hooks (signaltty's among them)",
};

const READY: ScreenSign = ScreenSign {
    lifecycle: Lifecycle::Idle,
    attention: Attention::None,
    message: "",
};

/// First match wins: a dialog drawn over the composer must beat the composer's placeholder.
const PHRASES: &[Phrase] = &[
    Phrase {
        kind: AgentKind::Claude,
        text: "Do you trust the files in this folder?",
        sign: CLAUDE_TRUST,
    },
    Phrase {
        kind: AgentKind::Claude,
        text: "Quick safety check",
        sign: CLAUDE_TRUST,
    },
    Phrase {
        kind: AgentKind::Codex,
        text: "Hooks need review",
        sign: HOOK_REVIEW,
    },
    Phrase {
        kind: AgentKind::Codex,
        text: "Do you trust the contents of this directory?",
        sign: CODEX_TRUST,
    },
    // Codex's composer placeholder: it takes a prompt, and it runs no hook until it gets one.
    Phrase {
        kind: AgentKind::Codex,
        text: "Ask Codex",
        sign: READY,
    },
];

/// What `screen` (the visible text of a pane running `kind`) shows, if it is one of the known
/// start-up screens.
pub fn read(kind: AgentKind, screen: &str) -> Option<ScreenSign> {
    PHRASES
        .iter()
        .filter(|p| p.kind == kind)
        .find(|p| screen.contains(p.text))
        .map(|p| p.sign)
}

/// The questions Claude's own permission dialog asks (it shows beside the hook signaltty holds).
const CLAUDE_PERMISSION_DIALOG: &[&str] = &[
    "Do you want to proceed?",
    "Do you want to make this edit",
    "Do you want to create",
    "Do you want to allow",
];

/// Whether `screen` shows the agent's own permission dialog. Claude fires no hook when the
/// user answers it there ("Yes" lets a command run for minutes before PostToolUse), so its
/// going is how the pane learns that the request is settled. Only Claude shows its dialog
/// while a hook of ours waits.
pub fn permission_dialog(kind: AgentKind, screen: &str) -> bool {
    shows_permission_dialog(kind) && CLAUDE_PERMISSION_DIALOG.iter().any(|q| screen.contains(q))
}

/// Whether `kind` shows its own permission dialog while our hook waits.
pub fn shows_permission_dialog(kind: AgentKind) -> bool {
    kind == AgentKind::Claude
}

/// Codex's status line while a turn runs (its spinner line).
const CODEX_BUSY: &str = "esc to interrupt";

/// How Codex marks an error (and an interruption, which its Interrupt hook reports) in the
/// transcript it draws.
const CODEX_ERROR_MARK: &str = "■ ";

/// The last error Codex drew, when its turn is no longer running: Codex 0.171 runs no hook when
/// a turn fails (no StopFailure), so this is the only sign that the turn ended. The error's text
/// runs from the mark to the next blank line. An interruption is not an error here.
pub fn codex_turn_error(screen: &str) -> Option<String> {
    if screen.contains(CODEX_BUSY) {
        return None;
    }
    let lines: Vec<&str> = screen.lines().collect();
    let start = lines
        .iter()
        .rposition(|l| l.trim_start().starts_with(CODEX_ERROR_MARK))?;
    let text: Vec<&str> = lines[start..]
        .iter()
        .map(|l| l.trim())
        .take_while(|l| !l.is_empty())
        .collect();
    let text = text.join(" ");
    let text = text.trim_start_matches(CODEX_ERROR_MARK.trim_end()).trim();
    (!text.is_empty() && !text.to_lowercase().contains("interrupted")).then(|| text.to_owned())
}

/// Whether any phrase exists for `kind` (panes of other kinds are never watched).
pub fn watched(kind: AgentKind) -> bool {
    PHRASES.iter().any(|p| p.kind == kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claudes_trust_dialog_is_blocked_on_the_user() {
        let screen = "Accessing workspace:\n\n /tmp/proj\n\n Quick safety check: Is this a \
                      project you created or one you trust?\n ❯ 1. Yes, I trust this folder";
        let sign = read(AgentKind::Claude, screen).expect("a sign");
        assert_eq!(sign.lifecycle, Lifecycle::Blocked);
        assert_eq!(sign.attention, Attention::InputRequired);
    }

    #[test]
    fn a_dialog_over_codexs_composer_wins_over_the_composer() {
        let screen = "› Ask Codex to do anything\n\n  Hooks need review\n  1. Trust";
        assert_eq!(read(AgentKind::Codex, screen), Some(HOOK_REVIEW));
        assert_eq!(
            read(AgentKind::Codex, "› Ask Codex to do anything"),
            Some(READY)
        );
    }

    #[test]
    fn claudes_permission_dialog_is_recognised() {
        let screen = " Bash command\n\n   tail -f /dev/null\n\n Do you want to proceed?\n ❯ 1. Yes";
        assert!(permission_dialog(AgentKind::Claude, screen));
        assert!(!permission_dialog(AgentKind::Claude, "> esc to interrupt"));
        assert!(!permission_dialog(AgentKind::Codex, screen));
    }

    #[test]
    fn codexs_drawn_error_ends_its_turn_once_the_spinner_is_gone() {
        let failed = "› this will fail\n\n\n■ {\"error\":{\"message\":\"the fake model\nrefuses\"}}\n\n\n\
                      › Ask Codex to do anything";
        let said = codex_turn_error(failed).expect("an error");
        assert!(said.starts_with("{\"error\""), "{said}");
        assert!(said.contains("the fake model refuses"), "{said}");
        let busy = format!("{failed}\n• Working (3s • esc to interrupt)");
        assert_eq!(codex_turn_error(&busy), None);
        assert_eq!(
            codex_turn_error("■ Conversation interrupted - tell the model what to do differently"),
            None
        );
        assert_eq!(codex_turn_error("› Ask Codex to do anything"), None);
    }

    #[test]
    fn phrases_belong_to_their_agent() {
        assert_eq!(read(AgentKind::Claude, "Hooks need review"), None);
        assert_eq!(read(AgentKind::Codex, "Quick safety check"), None);
        assert_eq!(read(AgentKind::Opencode, "Quick safety check"), None);
        assert!(!watched(AgentKind::Opencode));
        assert!(watched(AgentKind::Claude));
    }
}
