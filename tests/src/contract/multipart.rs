//! A `multipart/form-data` body (RFC 7578) split into its parts, as far as the contract
//! check needs: each part's name, whether it carries a file name, and its bytes.

/// One part of a multipart body.
#[derive(Debug, PartialEq, Eq)]
pub struct Part<'a> {
    /// The `name` of its `Content-Disposition`.
    pub name: String,
    /// Whether the part is a file (its disposition has a `filename`).
    pub file: bool,
    /// The part's content.
    pub content: &'a [u8],
}

/// The `boundary` parameter of a `multipart/form-data` content type.
pub fn boundary(content_type: &str) -> Option<&str> {
    content_type.split(';').skip(1).find_map(|param| {
        let (key, value) = param.split_once('=')?;
        key.trim()
            .eq_ignore_ascii_case("boundary")
            .then(|| value.trim().trim_matches('"'))
            .filter(|b| !b.is_empty())
    })
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The parts of `body` delimited by `boundary`, or why it is not a multipart body.
pub fn parts<'a>(body: &'a [u8], boundary: &str) -> Result<Vec<Part<'a>>, String> {
    let delimiter = format!("--{boundary}");
    let start = find(body, delimiter.as_bytes()).ok_or("no opening boundary")?;
    let mut rest = &body[start + delimiter.len()..];
    let mut out = Vec::new();
    let close = format!("\r\n--{boundary}");
    loop {
        if rest.starts_with(b"--") {
            return Ok(out);
        }
        rest = rest
            .strip_prefix(b"\r\n")
            .ok_or("a boundary not followed by CRLF")?;
        let head_end = find(rest, b"\r\n\r\n").ok_or("a part without a blank line")?;
        let head = String::from_utf8_lossy(&rest[..head_end]);
        let after = &rest[head_end + 4..];
        let end = find(after, close.as_bytes()).ok_or("a part without a closing boundary")?;
        let disposition = head
            .lines()
            .find_map(|l| {
                let (name, value) = l.split_once(':')?;
                name.trim()
                    .eq_ignore_ascii_case("content-disposition")
                    .then_some(value)
            })
            .ok_or("a part without Content-Disposition")?;
        let param = |key: &str| {
            disposition.split(';').skip(1).find_map(|p| {
                let (k, v) = p.split_once('=')?;
                (k.trim() == key).then(|| v.trim().trim_matches('"').to_owned())
            })
        };
        out.push(Part {
            name: param("name").ok_or("a part without a name")?,
            file: param("filename").is_some(),
            content: &after[..end],
        });
        rest = &after[end + close.len()..];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_named_and_files_told_apart() {
        let body = b"preamble\r\n--xyz\r\nContent-Disposition: form-data; name=\"type\"\r\n\r\npfx\r\n--xyz\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.pfx\"\r\nContent-Type: application/x-pkcs12\r\n\r\n\x00\x01\r\n--xyz--\r\n";
        assert_eq!(
            boundary("multipart/form-data; boundary=\"xyz\""),
            Some("xyz")
        );
        assert_eq!(boundary("multipart/form-data"), None);
        let parts = parts(body, "xyz").unwrap();
        assert_eq!(parts.len(), 2);
        assert_eq!((parts[0].name.as_str(), parts[0].file), ("type", false));
        assert_eq!(parts[0].content, b"pfx");
        assert_eq!((parts[1].name.as_str(), parts[1].file), ("file", true));
        assert_eq!(parts[1].content, b"\x00\x01");
        assert!(super::parts(b"--xyz\r\nX: y\r\n\r\nz\r\n--xyz--", "xyz").is_err());
        assert!(super::parts(b"nothing", "xyz").is_err());
    }
}
