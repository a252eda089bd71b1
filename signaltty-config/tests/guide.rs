//! docs/guide.md documents every key of the schema (in its configuration table), so a key added
//! to `schema::KEYS` without documentation fails here.

use signaltty_config::schema::KEYS;

#[test]
fn the_user_guide_documents_every_key() {
    let guide = include_str!("../../docs/guide.md");
    for key in KEYS {
        let section = key.section.replace('*', "<kind>");
        let row = format!("| `{section}.{}` |", key.name);
        assert!(guide.contains(&row), "docs/guide.md lacks a row for {row}");
    }
}

#[test]
fn the_guides_example_file_is_valid() {
    let guide = include_str!("../../docs/guide.md");
    let start = guide.find("```toml\n").expect("a TOML example") + "```toml\n".len();
    let end = start + guide[start..].find("```").expect("its end");
    let config = signaltty_config::parse(&guide[start..end]).expect("the example parses");
    assert_eq!(config.server.default_shell.as_deref(), Some("/bin/zsh"));
}
