//! Finding rows from what a person says: accent- and case-folded words of the query matched
//! against each row's title, search words and `operationId` (which spells the path), by
//! whole word or by a common stem (`prorroga` finds `prorrogar`), the same word and the title
//! counting more, best matches first.

use super::row::Row;

/// Words that say nothing about which operation is meant.
const STOPWORDS: &[&str] = &[
    "a", "as", "o", "os", "um", "uma", "de", "da", "do", "das", "dos", "e", "em", "no", "na",
    "nos", "nas", "para", "pra", "por", "com", "que", "se", "ao", "aos", "meu", "minha", "the",
    "of", "to", "for", "and", "an", "in", "on", "by", "me", "eu", "quero", "preciso", "favor",
];

/// Shortest common stem that counts as a match between two different words.
const MIN_STEM: usize = 5;

/// Longest ending a word may have past the stem it shares with another.
const MAX_ENDING: usize = 3;

/// `text` lower-cased, accents folded, split into words (letters and digits). Two spoken
/// forms are read for what they mean: "dá"/"dê" (the verb, not the article "da") is `dar`,
/// and an instalment count such as "6x" is `parcelar vezes`.
pub fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .flat_map(|w| {
            let lower: String = w.chars().flat_map(char::to_lowercase).collect();
            spoken(&lower)
        })
        .collect()
}

/// One lower-cased word, accents folded, spoken forms read (see [`words`]).
fn spoken(word: &str) -> Vec<String> {
    if word == "dá" || word == "dê" {
        return vec!["dar".to_owned()];
    }
    let folded: String = word.chars().map(fold).collect();
    let count = folded.strip_suffix('x').unwrap_or_default();
    if !count.is_empty() && count.bytes().all(|b| b.is_ascii_digit()) {
        return vec!["parcelar".to_owned(), "vezes".to_owned()];
    }
    vec![folded]
}

/// One character without its accent (Portuguese letters; others unchanged).
fn fold(c: char) -> char {
    match c {
        'á' | 'à' | 'â' | 'ã' | 'ä' => 'a',
        'é' | 'è' | 'ê' | 'ë' => 'e',
        'í' | 'ì' | 'î' | 'ï' => 'i',
        'ó' | 'ò' | 'ô' | 'õ' | 'ö' => 'o',
        'ú' | 'ù' | 'û' | 'ü' => 'u',
        'ç' => 'c',
        'ñ' => 'n',
        other => other,
    }
}

/// Whether a query word matches a row word: equal, or sharing a stem of at least
/// [`MIN_STEM`] characters that each word exceeds by at most [`MAX_ENDING`] (`prorroga` and
/// `prorrogar`, `créditos` and `crédito`; not `fatura` and `faturamento`).
fn matches(query: &str, word: &str) -> bool {
    if query == word {
        return true;
    }
    let common = query
        .bytes()
        .zip(word.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    common >= MIN_STEM && query.len() - common <= MAX_ENDING && word.len() - common <= MAX_ENDING
}

/// The words a row is found by: its title, search words and `operationId`.
pub fn row_words(row: &Row) -> Vec<String> {
    let mut all = words(row.title);
    all.extend(words(row.words));
    all.extend(words(row.operation));
    all
}

/// How well `query` (its [`words`]) matches a row: each meaningful query word found counts
/// 1 by a common stem, 2 as the same word, and twice that in the title; 0 when none is.
pub fn score(query: &[String], row: &Row) -> u32 {
    let title = words(row.title);
    let all = row_words(row);
    let best = |list: &[String], q: &str| {
        if list.iter().any(|w| w == q) {
            2
        } else if list.iter().any(|w| matches(q, w)) {
            1
        } else {
            0
        }
    };
    query
        .iter()
        .filter(|q| !STOPWORDS.contains(&q.as_str()))
        .map(|q| (2 * best(&title, q)).max(best(&all, q)))
        .sum()
}

/// The rows `query` finds, best first (ties keep the rows' order), at most `limit`.
pub fn rank<'r>(query: &str, rows: impl Iterator<Item = &'r Row>, limit: usize) -> Vec<&'r Row> {
    let query = words(query);
    let mut scored: Vec<(u32, usize, &Row)> = rows
        .enumerate()
        .map(|(at, row)| (score(&query, row), at, row))
        .filter(|(score, _, _)| *score > 0)
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    scored
        .into_iter()
        .take(limit)
        .map(|(_, _, row)| row)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_fold_accents_and_case_and_stems_match() {
        assert_eq!(
            words("Prorrogar o Vencimento!"),
            ["prorrogar", "o", "vencimento"]
        );
        assert_eq!(words("crédito/AÇÃO"), ["credito", "acao"]);
        assert_eq!(
            words("dá R$ 50 em 6x, da conta"),
            ["dar", "r", "50", "em", "parcelar", "vezes", "da", "conta"]
        );
        assert!(matches("prorroga", "prorrogar"));
        assert!(matches("vencimento", "vencimento"));
        assert!(matches("creditos", "credito"));
        assert!(!matches("pagar", "pagamento"));
        assert!(!matches("fatura", "faturamento"));
    }

    #[test]
    fn rank_puts_title_matches_first() {
        let found = rank("alterar organização", crate::catalog::operations::all(), 5);
        assert_eq!(found[0].operation, "patch-organization");
        assert!(rank("xyzzy", crate::catalog::operations::all(), 5).is_empty());
    }
}
