//! Shell completions and man pages, generated from the clap definition: each script is valid
//! for its shell and names the commands; the man pages render and cover every subcommand.

mod common;

use common::TestEnv;

#[test]
fn completion_scripts_name_the_commands_and_parse() {
    let env = TestEnv::new();
    let bash = env.ok(&["completions", "bash"]);
    for word in [
        "_signaltty()",
        "attach",
        "workspace",
        "decision",
        "completions",
    ] {
        assert!(bash.contains(word), "bash completion lacks {word}");
    }
    // The script must be valid bash (syntax check only).
    let script = env.dir.path().join("signaltty.bash");
    std::fs::write(&script, &bash).expect("write script");
    let checked = std::process::Command::new("bash")
        .arg("-n")
        .arg(&script)
        .output()
        .expect("run bash -n");
    assert!(checked.status.success(), "{checked:?}");

    let zsh = env.ok(&["completions", "zsh"]);
    assert!(zsh.starts_with("#compdef signaltty"), "{}", &zsh[..40]);
    let fish = env.ok(&["completions", "fish"]);
    assert!(fish.contains("complete -c signaltty"), "fish");
    assert!(fish.contains("-a \"attach\""), "fish lists subcommands");

    let bad = env.fails(&["completions", "tcsh"], 2);
    assert!(bad.stderr.contains("possible values"), "{bad:?}");
}

#[test]
fn man_pages_render_for_every_command() {
    let env = TestEnv::new();
    let page = env.ok(&["man"]);
    assert!(page.starts_with(".ie \\n(.g .ds Aq"), "a roff page");
    assert!(page.contains(".TH signaltty 1"), "{}", &page[..200]);
    assert!(page.contains("attach"), "lists the subcommands");

    let dir = env.dir.path().join("man");
    let dir_str = dir.to_str().expect("UTF-8");
    env.ok(&["man", "--dir", dir_str]);
    for page in [
        "signaltty.1",
        "signaltty-attach.1",
        "signaltty-pane-spawn.1",
        "signaltty-config-check.1",
    ] {
        let text =
            std::fs::read_to_string(dir.join(page)).unwrap_or_else(|e| panic!("{page}: {e}"));
        assert!(text.contains(".TH"), "{page} is a man page");
    }
}
