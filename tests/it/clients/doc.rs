//! The "Connect from your host" document (`docs/clients.md`) and what it shares with the
//! README and `docs/access.md` (HT-3), read as text: no server, no Node, so the quick loop runs
//! them. What each snippet does when a host runs it is proven in `host_clis.rs`,
//! `matrix.rs` and `token_front::browser`.

use std::path::PathBuf;

use kobana_mcp::config::DEFAULT_KOBANA_API_URL;
use regex_lite::Regex;

use crate::common;
use crate::house::support::{assert_none, files_ending, from_root, read, root, rust_files};

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
    let dir = root().join("clients/matrix");
    let clients = ["_client.py", "_client.mjs"].map(|end| files_ending(&dir, end));
    let snippet = |f: &PathBuf| Some((from_root(f), capture(pattern, &read(f))?));
    let snippets: Vec<_> = clients.concat().iter().filter_map(snippet).collect();
    for (name, snippet) in &snippets {
        let carried = doc.contains(snippet.as_str());
        assert!(carried, "{name}: not in docs/clients.md:\n{snippet}");
    }
    let libraries = "fastmcp, pydantic-ai, openai-agents, LangChain, mcp-use, AI SDK, Mastra";
    assert_eq!(snippets.len(), 7, "seven library snippets ({libraries})");
}

/// Every `<!-- snippet: NAME -->` of the document is named by a test of `tests/it` (as the
/// string literal `"NAME"`), so no host's snippet is left untested, and every one names the
/// example URL the tests swap for their server's.
#[test]
fn ht3_every_marked_snippet_is_read_by_a_test() {
    let doc = common::clients_doc();
    let files = rust_files(&root().join("tests/it")).into_iter();
    let code: String = files
        .filter(|f| !f.ends_with("clients/doc.rs"))
        .map(read)
        .collect();
    let markers = doc.split("<!-- snippet: ").skip(1);
    let names = markers.map(|rest| rest.split_once(" -->").expect("a closed marker").0);
    // The document's own explanation writes the marker with a placeholder, `NAME`.
    let names: Vec<&str> = names.filter(|n| !n.contains("NAME")).collect();
    assert!(names.len() >= 10, "{names:?}");
    let unread = names.iter().filter(|n| !code.contains(&format!("\"{n}\"")));
    assert_none(unread, "snippets no test reads");
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
    let access = capture(block, &read("docs/access.md"));
    let why = "docs/access.md must carry docs/clients.md's billing-token block verbatim";
    assert_eq!(Some(&said), access.as_ref(), "{why}");
    let needles =
        "Faturamento Automático|https://api.billing.kobana.com.br|KOBANA_API_URL|Token de API";
    for needle in needles.split('|').chain([DEFAULT_KOBANA_API_URL]) {
        assert!(said.contains(needle), "the block names {needle:?}");
    }
}
