//! The page, built from `web/` by esbuild and committed in `web/dist/`, embedded in the binary so
//! a machine with only cargo serves it (`.ci/run` rebuilds it and fails when the committed build
//! differs from the sources).

/// One embedded file.
#[derive(Debug, Clone, Copy)]
pub struct Asset {
    /// Its `Content-Type`.
    pub content_type: &'static str,
    /// Its bytes.
    pub bytes: &'static [u8],
}

/// The HTML shell.
pub const INDEX: Asset = Asset {
    content_type: "text/html; charset=utf-8",
    bytes: include_bytes!("../../web/dist/index.html"),
};

/// The file served at `/<name>`, if any.
pub fn asset(name: &str) -> Option<Asset> {
    match name {
        "app.js" => Some(Asset {
            content_type: "text/javascript; charset=utf-8",
            bytes: include_bytes!("../../web/dist/app.js"),
        }),
        "app.css" => Some(Asset {
            content_type: "text/css; charset=utf-8",
            bytes: include_bytes!("../../web/dist/app.css"),
        }),
        _ => None,
    }
}
