//! Finding rows from what a person says: accent- and case-folded words of the query matched
//! against each row's title, search words, `operationId` and path, by whole word or by a
//! common stem (`prorroga` finds `prorrogar`), best matches first.

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

/// `text` lower-cased, accents folded, split into words (letters and digits).
pub fn words(text: &str) -> Vec<String> {
    let folded: String = text
        .chars()
        .flat_map(char::to_lowercase)
        .map(fold)
        .collect();
    folded
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
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

/// The words a row is found by: its title, search words, `operationId` and path.
pub fn row_words(row: &Row, path: &str) -> Vec<String> {
    let mut all = words(row.title);
    all.extend(words(row.words));
    all.extend(words(row.operation));
    all.extend(words(path));
    all
}

/// How well `query` matches a row's words: the number of meaningful query words found
/// (title words count double), 0 when none is.
pub fn score(query: &[String], row: &Row, path: &str) -> u32 {
    let title = words(row.title);
    let all = row_words(row, path);
    query
        .iter()
        .filter(|q| !STOPWORDS.contains(&q.as_str()))
        .map(|q| {
            if title.iter().any(|w| matches(q, w)) {
                2
            } else if all.iter().any(|w| matches(q, w)) {
                1
            } else {
                0
            }
        })
        .sum()
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
        assert!(matches("prorroga", "prorrogar"));
        assert!(matches("vencimento", "vencimento"));
        assert!(matches("creditos", "credito"));
        assert!(!matches("pagar", "pagamento"));
        assert!(!matches("fatura", "faturamento"));
    }
}
