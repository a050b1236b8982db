//! The "Connect from your host" document (`docs/clients.md`) and what it shares with the
//! README and `docs/access.md` (HT-3), read as text: no server, no Node, so the quick loop runs
//! them. What each snippet does when a host runs it is proven in `host_clis.rs`,
//! `matrix.rs` and `token_front::browser`.

use crate::common;
use crate::house::support::{read, root, rust_files};

use kobana_mcp::config::DEFAULT_KOBANA_API_URL;
use regex_lite::Regex;

/// The first capture of `pattern` in `text`, trimmed.
fn capture(pattern: &str, text: &str) -> Option<String> {
    let found = Regex::new(pattern).unwrap().captures(text)?;
    Some(found[1].trim().to_owned())
}

/// The clients document's library snippets are the matrix scripts' marked regions, verbatim.
#[test]
fn ht3_clients_doc_snippets_are_the_tested_code() {
    let doc = common::clients_doc();
    let pattern = r"(?s)--- README snippet: [^\n]*\n(.*?)\n[^\n]*--- end of snippet ---";
    let mut seen = 0;
    for path in std::fs::read_dir(root().join("clients/matrix"))
        .unwrap()
        .flatten()
    {
        let name = path.file_name().to_string_lossy().into_owned();
        let client = name.ends_with("_client.py") || name.ends_with("_client.mjs");
        let text = if client {
            read(format!("clients/matrix/{name}"))
        } else {
            continue;
        };
        let Some(snippet) = capture(pattern, &text) else {
            continue;
        };
        assert!(
            doc.contains(&snippet),
            "docs/clients.md must carry the snippet of clients/matrix/{name} verbatim:\n{snippet}"
        );
        seen += 1;
    }
    let libraries = "fastmcp, pydantic-ai, openai-agents, LangChain, mcp-use, AI SDK, Mastra";
    assert_eq!(seen, 7, "seven library snippets ({libraries})");
}

/// Every `<!-- snippet: NAME -->` of the document is named by a test of `tests/it` (as the
/// string literal `"NAME"`), so no host's snippet is left untested, and every one names the
/// example URL the tests swap for their server's.
#[test]
fn ht3_every_marked_snippet_is_read_by_a_test() {
    let doc = common::clients_doc();
    let code: String = rust_files(&root().join("tests/it"))
        .iter()
        .filter(|path| !path.ends_with("clients/doc.rs"))
        .map(|path| std::fs::read_to_string(path).unwrap())
        .collect();
    let names: Vec<&str> = doc
        .split("<!-- snippet: ")
        .skip(1)
        .map(|rest| rest.split_once(" -->").expect("a closed marker").0)
        // The document's own explanation writes the marker with a placeholder, `NAME`.
        .filter(|name| name.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'))
        .collect();
    assert!(names.len() >= 10, "{names:?}");
    let unread: Vec<_> = names
        .iter()
        .filter(|n| !code.contains(&format!("\"{n}\"")))
        .collect();
    assert!(unread.is_empty(), "snippets no test reads: {unread:?}");
    for name in &names {
        let text = common::doc_snippet(&doc, name);
        assert!(text.contains(common::DOC_URL), "{name} names the URL");
    }
}

/// The README's "Connect a client" paragraph carries the quickest snippet, verbatim, and
/// sends the reader to `docs/clients.md`.
#[test]
fn ht3_readme_gives_the_quickest_snippet_and_links_the_clients_doc() {
    let readme = read("README.md");
    let quickest = common::doc_snippet(&common::clients_doc(), "claude-code");
    for needle in [quickest.trim(), "(docs/clients.md)"] {
        assert!(readme.contains(needle), "README.md lacks {needle:?}");
    }
}

/// Where a billing token comes from, and which environment's, is said once, word for word, in
/// both `docs/clients.md` and `docs/access.md`: both hosts of the billing API and the server's
/// own default among them.
#[test]
fn ht3_the_clients_and_access_docs_say_the_same_about_where_a_billing_token_comes_from() {
    let block = "(?s)<!-- shared: billing-token -->(.*?)<!-- end shared: billing-token -->";
    let said = capture(block, &read("docs/clients.md")).expect("docs/clients.md's block");
    assert_eq!(
        Some(&said),
        capture(block, &read("docs/access.md")).as_ref(),
        "docs/access.md must carry docs/clients.md's billing-token block verbatim"
    );
    for needle in [
        "Faturamento Automático",
        "https://api.billing.kobana.com.br",
        DEFAULT_KOBANA_API_URL,
        "KOBANA_API_URL",
        "Token de API",
    ] {
        assert!(said.contains(needle), "the block names {needle:?}");
    }
}
