//! The sentence language of a destructive row's question (see [`super::row::Row::asks`]):
//! literal pt-BR text, placeholders `{path.<name>}`, `{query.<name>}`, `{body.<dotted.path>}`
//! and `{record}`, and groups `[…]` kept only when every placeholder in them has a value.

/// One piece of a parsed sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// Text as written.
    Text(String),
    /// A placeholder: `record`, or a place (`body.amount_cents`).
    Place(String),
    /// A group kept only when every placeholder in it has a value.
    Group(Vec<Piece>),
}

/// Parses a sentence template; `Err` names what is wrong (an unclosed `{` or `[`, a `]`
/// without its `[`, a group inside a group, a placeholder that is not a place).
pub fn parse(template: &str) -> Result<Vec<Piece>, String> {
    let mut top: Vec<Piece> = Vec::new();
    let mut group: Option<Vec<Piece>> = None;
    let mut text = String::new();
    let mut chars = template.chars();
    while let Some(c) = chars.next() {
        let in_group = group.is_some();
        let pieces = group.as_mut().unwrap_or(&mut top);
        match c {
            '{' => {
                flush(&mut text, pieces);
                let mut place = String::new();
                loop {
                    match chars.next() {
                        Some('}') => break,
                        Some(c) => place.push(c),
                        None => return Err(format!("`{{{place}` sem `}}`")),
                    }
                }
                if !is_place(&place) {
                    return Err(format!("`{{{place}}}` não é um lugar do pedido"));
                }
                pieces.push(Piece::Place(place));
            }
            '[' => {
                if in_group {
                    return Err("grupo `[` dentro de outro grupo".to_owned());
                }
                flush(&mut text, pieces);
                group = Some(Vec::new());
            }
            ']' => {
                let Some(mut inner) = group.take() else {
                    return Err("`]` sem o `[` que o abre".to_owned());
                };
                flush(&mut text, &mut inner);
                top.push(Piece::Group(inner));
            }
            c => text.push(c),
        }
    }
    if group.is_some() {
        return Err("`[` sem `]`".to_owned());
    }
    flush(&mut text, &mut top);
    Ok(top)
}

fn flush(text: &mut String, pieces: &mut Vec<Piece>) {
    if !text.is_empty() {
        pieces.push(Piece::Text(std::mem::take(text)));
    }
}

/// Whether `place` names something a request has: `record`, or `path.`/`query.`/`body.`
/// followed by names.
fn is_place(place: &str) -> bool {
    if place == "record" {
        return true;
    }
    let Some((root, rest)) = place.split_once('.') else {
        return false;
    };
    matches!(root, "path" | "query" | "body")
        && !rest.is_empty()
        && rest
            .split('.')
            .all(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
}

/// Every placeholder of a parsed sentence, groups included.
pub fn places(pieces: &[Piece]) -> Vec<&str> {
    let mut out = Vec::new();
    for piece in pieces {
        match piece {
            Piece::Place(place) => out.push(place.as_str()),
            Piece::Group(inner) => out.extend(places(inner)),
            Piece::Text(_) => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_parse_into_text_places_and_groups() {
        let pieces = parse("Dar {body.amount_cents} de crédito[ a {record}]").unwrap();
        assert_eq!(
            pieces,
            vec![
                Piece::Text("Dar ".into()),
                Piece::Place("body.amount_cents".into()),
                Piece::Text(" de crédito".into()),
                Piece::Group(vec![
                    Piece::Text(" a ".into()),
                    Piece::Place("record".into())
                ]),
            ]
        );
        assert_eq!(places(&pieces), ["body.amount_cents", "record"]);
        for bad in [
            "x {body.a",
            "[x [y]]",
            "x]",
            "[x",
            "{nope}",
            "{body.}",
            "{body.a b}",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
