//! Values from outside (a client's name, anything Kobana sent) as a log line may carry them
//! (BW-3): one line, nothing hidden. Every control character (newlines included), bidi control,
//! zero-width and other format character — what [`crate::format::is_hidden_char`] names — is
//! written as `\u{…}`, and `\` as `\\`, so the text cannot split a line, reorder it on
//! screen or hide a part of itself, and the escape cannot be forged.

use std::fmt::Write as _;

/// `text` escaped for a log line, at most `max_chars` characters of it (before escaping).
pub fn escaped(text: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max_chars * 4));
    for c in text.chars().take(max_chars) {
        if c == '\\' {
            out.push_str("\\\\");
        } else if crate::format::is_hidden_char(c) {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn n9_newlines_bidi_and_format_characters_are_escaped_and_nothing_else() {
        assert_eq!(
            escaped("a\nb\r\u{202E}c\u{200B}d\u{2028}e\\u{202e}", 100),
            "a\\u{a}b\\u{d}\\u{202e}c\\u{200b}d\\u{2028}e\\\\u{202e}"
        );
        assert_eq!(escaped("Cursor Pão", 100), "Cursor Pão");
        assert_eq!(escaped("abcdef", 3), "abc");
        let out = escaped("x\u{1b}[31m\u{7f}\u{85}", 100);
        assert!(out.chars().all(|c| !c.is_control()), "{out:?}");
    }
}
