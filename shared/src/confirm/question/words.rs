//! How a question is written: the facts in the server's voice, the notes, one closing
//! sentence, then each free text as quoted data; and the small readers every resource's
//! wording shares (a record's text, amount and day, a plain reference or document).

use serde_json::Value;

use crate::format::{brl_from_cents, plain_line, quotable_line};

/// Longest free text from a record shown (a name, a number), in characters, the `…`
/// included. A reason is shown whole: it is what is sent.
pub const MAX_QUOTED_CHARS: usize = 120;

/// The sentence a question closes with, unless its action has a documented way back.
pub const IRREVERSIBLE: &str = "Esta ação não pode ser desfeita.";

/// A question being written: the facts (the server's voice), the notes, the closing
/// sentence, then the quoted texts.
#[derive(Debug, Default)]
pub(super) struct Question {
    facts: Vec<String>,
    notes: Vec<String>,
    closing: Option<&'static str>,
    quoted: Vec<(&'static str, String)>,
}

impl Question {
    pub(super) fn fact(&mut self, fact: impl Into<String>) {
        self.facts.push(fact.into());
    }

    pub(super) fn note(&mut self, note: impl Into<String>) {
        self.notes.push(note.into());
    }

    /// Replaces [`IRREVERSIBLE`] with the way back Kobana documents for this action.
    pub(super) fn closing(&mut self, sentence: &'static str) {
        self.closing = Some(sentence);
    }

    pub(super) fn quote(&mut self, label: &'static str, text: &str) {
        self.quoted.push((label, quoted(text)));
    }

    pub(super) fn reason(&mut self, reason: Option<&str>) {
        match reason.map(plain_line).filter(|r| !r.is_empty()) {
            Some(reason) => self
                .quoted
                .push(("Motivo informado", quoted_whole(&reason))),
            None => self.note("Sem motivo informado."),
        }
    }

    pub(super) fn render(self) -> String {
        let mut out = format!("{}?", self.facts.join(" "));
        for note in &self.notes {
            out.push(' ');
            out.push_str(note);
        }
        out.push(' ');
        out.push_str(self.closing.unwrap_or(IRREVERSIBLE));
        for (label, text) in &self.quoted {
            out.push_str(&format!(" {label}: {text}."));
        }
        out
    }
}

/// `text` as quoted data: one [quotable line](quotable_line) (delimiter look-alikes
/// replaced by `"`), at most [`MAX_QUOTED_CHARS`] characters (cut with `…`), between `«`
/// and `»`. For texts from Kobana's records, which are shown, never sent.
pub fn quoted(text: &str) -> String {
    let line = quotable_line(text);
    let shown = if line.chars().count() > MAX_QUOTED_CHARS {
        let mut cut: String = line.chars().take(MAX_QUOTED_CHARS - 1).collect();
        cut.truncate(cut.trim_end().len());
        cut.push('…');
        cut
    } else {
        line
    };
    format!("«{shown}»")
}

/// A reason as quoted data, whole (BW-6): the tools send it already as a quotable line
/// (`reason_arg`), so every character sent is a character shown, whatever its length.
pub fn quoted_whole(text: &str) -> String {
    format!("«{}»", quotable_line(text))
}

/// A non-blank string member (numbers as their digits), as Kobana sent it.
pub(super) fn text(record: &Value, key: &str) -> Option<String> {
    match record.get(key)? {
        Value::String(s) if !plain_line(s).is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// A string member as Kobana wrote it (`status`), `""` when absent.
pub(super) fn word<'a>(record: &'a Value, key: &str) -> &'a str {
    record.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// An integer amount in cents, as BRL.
pub(super) fn cents(record: &Value, key: &str) -> Option<String> {
    record.get(key)?.as_i64().map(brl_from_cents)
}

/// A date-time (or date) member as `DD/MM/AAAA` in America/Sao_Paulo.
pub(super) fn day(record: &Value, key: &str) -> Option<String> {
    let raw = record.get(key)?.as_str()?.trim();
    if let Ok(ts) = raw.parse::<jiff::Timestamp>() {
        return Some(
            ts.to_zoned_datetime(crate::format::sao_paulo())
                .strftime("%d/%m/%Y")
                .to_string(),
        );
    }
    let date: jiff::civil::Date = raw.parse().ok()?;
    Some(date.strftime("%d/%m/%Y").to_string())
}

/// A day member (`due_date`) as `DD/MM/AAAA`, in whichever form Kobana wrote it.
pub(super) fn calendar(record: &Value, key: &str) -> Option<String> {
    let raw = record.get(key)?.as_str()?;
    Some(
        crate::format::calendar_day(raw)?
            .strftime("%d/%m/%Y")
            .to_string(),
    )
}

/// A reference shown as it is (not quoted): letters, digits and `.`, `_`, `/`, `-`.
pub(super) fn is_reference(s: &str) -> bool {
    (1..=40).contains(&s.len())
        && s.bytes().any(|b| b.is_ascii_alphanumeric())
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'/' | b'-'))
}

/// A CPF/CNPJ shown as it is (not quoted): digits and `.`, `/`, `-`.
pub(super) fn is_document(s: &str) -> bool {
    (1..=24).contains(&s.len())
        && s.bytes().any(|b| b.is_ascii_digit())
        && s.bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'/' | b'-'))
}

/// `items` joined the way pt-BR lists them: "a", "a e b", "a, b e c".
pub(super) fn joined(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} e {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn cf2_quoted_text_cannot_close_its_quote_or_hide_anything() {
        let hostile = "x». Valor a estornar: R$ 1,00.\u{2028}\u{202E}Motivo: «y\u{200B}\n";
        let q = quoted(hostile);
        assert_eq!(q, "«x\". Valor a estornar: R$ 1,00. Motivo: \"y»");
        assert_eq!(q.matches('«').count(), 1);
        assert_eq!(q.matches('»').count(), 1);
        let long = quoted(&"a".repeat(500));
        assert_eq!(long.chars().count(), MAX_QUOTED_CHARS + 2);
        assert!(long.ends_with("…»"));
    }

    /// BW-6: the question shows every character of the reason that will be sent, up to the
    /// longest reason each tool accepts.
    #[test]
    fn n4_the_question_shows_the_whole_reason_that_is_sent() {
        use crate::catalog::{MAX_NFE_REASON_CHARS, MAX_REASON_CHARS, reason_arg};
        for max in [MAX_REASON_CHARS, MAX_NFE_REASON_CHARS] {
            let unit = "Motivo «x» ‹y› \u{202E}z\u{200B} ";
            let raw: String = unit.chars().cycle().take(max * 2).collect();
            let mut raw_fit: String = String::new();
            for c in raw.chars() {
                let mut next = raw_fit.clone();
                next.push(c);
                if crate::format::quotable_line(&next).chars().count() > max {
                    break;
                }
                raw_fit = next;
            }
            let sent = reason_arg("reason", &raw_fit, max).expect("within the limit");
            assert!(sent.chars().count() > max - 10, "{}", sent.chars().count());
            let mut q = Question::default();
            q.fact("Anular a fatura");
            q.reason(Some(&sent));
            let shown = q.render();
            let inside = shown
                .split_once("Motivo informado: «")
                .and_then(|(_, rest)| rest.rsplit_once("»."))
                .map(|(reason, _)| reason)
                .expect("the reason is quoted");
            assert_eq!(inside, sent, "every character sent is shown");
            assert!(!sent.contains('«') && !sent.contains('»'));
            assert!(
                reason_arg("reason", &raw, max).is_err(),
                "longer is refused"
            );
        }
    }

    #[test]
    fn cf2_the_question_is_facts_then_notes_then_quoted_texts() {
        let mut q = Question::default();
        q.fact("Anular a fatura FAT-2026-000812 de R$ 499,00, vencimento 25/08/2026");
        q.quote("Cliente (nome no cadastro)", "Padaria Pão Dourado Ltda");
        q.reason(Some("Cobrança duplicada"));
        assert_eq!(
            q.render(),
            "Anular a fatura FAT-2026-000812 de R$ 499,00, vencimento 25/08/2026? Esta ação não pode ser desfeita. Cliente (nome no cadastro): «Padaria Pão Dourado Ltda». Motivo informado: «Cobrança duplicada»."
        );
        let mut q = Question::default();
        q.fact("Aplicar");
        q.note("Uma nota.");
        q.closing("Dá para voltar atrás.");
        assert_eq!(q.render(), "Aplicar? Uma nota. Dá para voltar atrás.");
        assert_eq!(
            day(&json!({"d": "2026-08-25T03:00:00Z"}), "d").as_deref(),
            Some("25/08/2026")
        );
        assert_eq!(
            day(&json!({"d": "2026-08-25"}), "d").as_deref(),
            Some("25/08/2026")
        );
        for form in ["2026-08-25T03:00:00Z", "2026-08-25T00:00:00Z", "2026-08-25"] {
            assert_eq!(
                calendar(&json!({ "due_date": form }), "due_date").as_deref(),
                Some("25/08/2026"),
                "{form}"
            );
        }
        assert!(is_reference("FAT-2026-000812"));
        assert!(!is_reference("FAT\". Valor: R$ 1,00"));
        assert!(is_document("45.321.287/0001-90"));
        assert!(!is_document("123 R$"));
        let list = |n: usize| joined(&(1..=n).map(|i| i.to_string()).collect::<Vec<_>>());
        assert_eq!([list(1), list(2), list(3)], ["1", "1 e 2", "1, 2 e 3"]);
    }
}
