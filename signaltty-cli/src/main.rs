//! The `signaltty` binary: everything lives in the `signaltty_cli` library.

fn main() -> std::process::ExitCode {
    signaltty_cli::main_entry()
}
