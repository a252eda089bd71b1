//! `docs/api.md`'s RPC reference is generated from the proto comments (the descriptor set's
//! source info): `UPDATE_API_DOC=1 cargo test -p signaltty-proto --test api_doc` rewrites the
//! section between the markers. Without it, the test fails when an RPC or service of the protos
//! is missing from the section (a comment reworded elsewhere does not fail CI; regenerate when
//! convenient).

use prost::Message;
use prost_types::FileDescriptorSet;

const BEGIN: &str = "<!-- BEGIN RPC REFERENCE: generated from proto/ by proto/tests/api_doc.rs -->";
const END: &str = "<!-- END RPC REFERENCE -->";

/// The leading comment of the element at `path` in a file, as one paragraph per blank line.
fn comment(file: &prost_types::FileDescriptorProto, path: &[i32]) -> String {
    let Some(info) = &file.source_code_info else {
        return String::new();
    };
    info.location
        .iter()
        .find(|l| l.path == path)
        .and_then(|l| l.leading_comments.clone())
        .unwrap_or_default()
        .split("\n\n")
        .map(|para| {
            let words = para.split_whitespace().collect::<Vec<_>>().join(" ");
            // Markdown would take `<tool>` for an HTML tag.
            words.replace('<', "&lt;").replace('>', "&gt;")
        })
        .filter(|para| !para.is_empty())
        .collect::<Vec<_>>()
        .join("<br><br>")
}

fn reference() -> String {
    let set =
        FileDescriptorSet::decode(signaltty_proto::FILE_DESCRIPTOR_SET).expect("descriptor set");
    let mut files: Vec<_> = set
        .file
        .iter()
        .filter(|f| f.package() == "signaltty.v1" && !f.service.is_empty())
        .collect();
    files.sort_by_key(|f| f.name().to_owned());
    let mut out = String::new();
    for file in files {
        for (s, service) in file.service.iter().enumerate() {
            // Field numbers of FileDescriptorProto.service (6) and ServiceDescriptorProto.method (2).
            let s = i32::try_from(s).expect("few services");
            out.push_str(&format!("\n### {} (`{}`)\n\n", service.name(), file.name()));
            out.push_str(&comment(file, &[6, s]));
            out.push_str("\n\n| RPC | request → response | what it does |\n|---|---|---|\n");
            for (m, method) in service.method.iter().enumerate() {
                let m = i32::try_from(m).expect("few methods");
                let stream = |yes: bool| if yes { "stream " } else { "" };
                let short = |t: &str| t.rsplit('.').next().unwrap_or(t).to_owned();
                out.push_str(&format!(
                    "| `{}` | {}`{}` → {}`{}` | {} |\n",
                    method.name(),
                    stream(method.client_streaming()),
                    short(method.input_type()),
                    stream(method.server_streaming()),
                    short(method.output_type()),
                    comment(file, &[6, s, 2, m]).replace('|', "\\|"),
                ));
            }
        }
    }
    out
}

#[test]
fn the_rpc_reference_in_docs_api_md_matches_the_proto_comments() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/api.md");
    let doc = std::fs::read_to_string(&path).expect("docs/api.md");
    let start = doc.find(BEGIN).expect("the BEGIN marker") + BEGIN.len();
    let end = doc.find(END).expect("the END marker");
    let generated = reference();
    assert!(
        generated.contains("| `Attach` |") && generated.contains("Subscribe"),
        "the descriptor set has no services or comments"
    );
    if std::env::var_os("UPDATE_API_DOC").is_some() {
        let updated = format!("{}{generated}{}", &doc[..start], &doc[end..]);
        std::fs::write(&path, updated).expect("rewrite docs/api.md");
        return;
    }
    let section = &doc[start..end];
    let missing: Vec<&str> = generated
        .lines()
        .filter(|line| line.starts_with("### ") || line.starts_with("| `"))
        .map(|line| line.split(" |").next().unwrap_or(line))
        .filter(|head| !section.contains(head))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/api.md's RPC reference lacks {missing:?}: run \
         `UPDATE_API_DOC=1 cargo test -p signaltty-proto --test api_doc` and commit the result"
    );
}
