//! The spawn form's command read the way a shell reads a line, so what works typed at a prompt
//! works in the form: words split on blanks, `'…'` and `"…"` quoting (with `\` escapes outside
//! single quotes), and anything a shell would have to do itself — pipes, redirections, `;`,
//! `&&`, `$VAR`, `$(…)`, globs, `~` — hands the whole line to `sh -c`.

/// The argv for a command line: its words, or `["sh", "-c", line]` when it needs a shell; an
/// empty line is an empty argv (the server starts the default shell). A quote left open is an
/// error that says so.
pub fn argv(line: &str) -> Result<Vec<String>, String> {
    let line = line.trim();
    if line.is_empty() {
        return Ok(Vec::new());
    }
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut shell = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err("a ' is not closed".into()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err("a \" is not closed".into()),
                        },
                        Some(c @ ('$' | '`')) => {
                            shell = true;
                            word.push(c);
                        }
                        Some(c) => word.push(c),
                        None => return Err("a \" is not closed".into()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(c) = chars.next() {
                    word.push(c);
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                if "|&;<>()$`*?[~{}".contains(c) || (c == '#' && !in_word) {
                    shell = true;
                }
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    if shell {
        return Ok(vec!["sh".into(), "-c".into(), line.to_owned()]);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::argv;

    fn words(line: &str) -> Vec<String> {
        argv(line).unwrap()
    }

    #[test]
    fn words_quotes_and_escapes_as_a_shell_splits_them() {
        assert!(words("  ").is_empty());
        assert_eq!(words("claude --model  opus"), ["claude", "--model", "opus"]);
        assert_eq!(
            words("git commit -m 'fix the tests'"),
            ["git", "commit", "-m", "fix the tests"]
        );
        assert_eq!(
            words(r#"echo "a \"b\" c" d\ e"#),
            ["echo", "a \"b\" c", "d e"]
        );
        assert_eq!(words("printf ''"), ["printf", ""]);
        assert_eq!(words("a-b=c@d:e,f"), ["a-b=c@d:e,f"]);
    }

    #[test]
    fn pipes_variables_and_globs_go_to_sh_c() {
        for line in [
            "cargo test 2>&1 | tee log",
            "echo $HOME",
            "echo \"$HOME\"",
            "make && make install",
            "ls *.rs",
            "cd ~/src",
            "echo $(date)",
        ] {
            assert_eq!(words(line), ["sh", "-c", line], "{line}");
        }
        // Quoted, they are plain characters.
        assert_eq!(words("echo 'a|b' '$X'"), ["echo", "a|b", "$X"]);
    }

    #[test]
    fn the_spawn_form_sends_the_line_as_a_shell_reads_it() {
        use crate::app::{Effect, Request};
        let now = std::time::Instant::now();
        let mut app = crate::test_fixture::app();
        let spawned = |fx: Vec<Effect>| {
            fx.into_iter().find_map(|e| match e {
                Effect::Request(Request::Spawn { argv, .. }) => Some(argv),
                _ => None,
            })
        };
        crate::dsl::press(&mut app, "s", now);
        let fx = crate::dsl::press(&mut app, "echo <space> 'a <space> b' <enter>", now);
        assert_eq!(spawned(fx).unwrap(), ["echo", "a b"]);
        crate::dsl::press(&mut app, "s", now);
        let fx = crate::dsl::press(
            &mut app,
            "echo <space> $HOME <space> | <space> wc <enter>",
            now,
        );
        assert_eq!(spawned(fx).unwrap(), ["sh", "-c", "echo $HOME | wc"]);
        // An open quote: the form stays, and says why.
        crate::dsl::press(&mut app, "s", now);
        let fx = crate::dsl::press(&mut app, "echo <space> 'a <enter>", now);
        assert!(spawned(fx).is_none());
        assert!(
            app.toasts
                .iter()
                .any(|t| t.text.contains("' is not closed"))
        );
    }

    #[test]
    fn an_open_quote_is_an_error() {
        assert_eq!(argv("echo 'a").unwrap_err(), "a ' is not closed");
        assert_eq!(argv("echo \"a").unwrap_err(), "a \" is not closed");
    }
}
