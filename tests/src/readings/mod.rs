//! The fake's profiles: which alternative of each open point of Kobana's material
//! (`readings` in `tests/contract/billing-v1.json`) it plays.
//!
//! `ours` (the default) plays the alternative the contract names under `fake.ours`; `others`
//! plays every other one (`fake.others`). `KOBANA_FAKE_READINGS` picks the profile of every
//! fake started without one (`ours`, `others`, then any `point=alternative` overrides:
//! `others,due_date_form=date_only`); [`crate::FakeKobana::start_with_readings`] picks it in
//! code.
//!
//! The fake's store keeps one canonical form (the `ours` one); the profile changes what
//! crosses the wire: [`wire`] rewrites requests before a handler and answers after the
//! contract check, and a few handlers (refund, the token issuer and vocabulary) ask the
//! profile themselves.

pub mod wire;

/// The environment variable naming the profile of fakes started without one.
pub const ENV: &str = "KOBANA_FAKE_READINGS";

/// Defines one point's alternatives: an enum whose variants carry the contract's ids.
macro_rules! point {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident => $id:literal,)+ }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum $name {
            $($(#[$vdoc])* $variant,)+
        }

        impl $name {
            /// Every alternative, in the contract's order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The alternative's id in the contract.
            pub fn id(self) -> &'static str {
                match self {
                    $($name::$variant => $id,)+
                }
            }

            /// The alternative with this contract id.
            pub fn from_id(id: &str) -> Option<Self> {
                Self::ALL.iter().copied().find(|a| a.id() == id)
            }
        }
    };
}

point! {
    /// `token_issuer`: which bearer tokens the fake takes as billing tokens.
    TokenIssuer {
        /// Kobana's app OAuth issues tokens billing takes: besides its own HS512 JWTs the fake
        /// takes an RS256 JWT signed by a key of the app OAuth it trusts
        /// ([`crate::auth::app_oauth_token`], [`crate::FakeKobana::trust_app_oauth`]).
        KobanaAppOauth => "kobana_app_oauth",
        /// Only the billing product's own HS512 JWT; any other token is `401 invalid_token`.
        BillingJwt => "billing_jwt",
    }
}

point! {
    /// `scope_words`: the vocabulary of the fake's full token and of its 403 details.
    ScopeWords {
        /// `<resource>:read|write`, `read`, `write`, `all`.
        ResourceLevel => "resource_level",
        /// `billing.<resource>.read|write`, `billing.read|write|all`.
        OtherVocabulary => "other_vocabulary",
    }
}

point! {
    /// `invoice_totals_unit` and `line_item_input_unit`: a money field's unit.
    MoneyUnit {
        /// Subcentavos (÷10 000), as the names say.
        Subcents => "subcents",
        /// Centavos (÷100), as the descriptions say.
        Cents => "cents",
    }
}

point! {
    /// `datetime_form`: how date-times are written and which ones requests may carry.
    DateTimeForm {
        /// RFC 3339 with the São Paulo offset; any offset accepted.
        Offset => "offset",
        /// UTC `Z`, minute precision when the seconds are zero; offsets refused.
        UtcZ => "utc_z",
    }
}

point! {
    /// `due_date_form`: how `InvoiceV1.due_date` is written.
    DueDateForm {
        /// `2026-08-25T03:00:00Z`.
        SaoPauloMidnight => "sao_paulo_midnight",
        /// `2026-08-25T00:00:00Z`.
        UtcMidnight => "utc_midnight",
        /// `2026-08-25`.
        DateOnly => "date_only",
    }
}

point! {
    /// `delete_answer`.
    DeleteAnswer {
        /// `200 {"data":{"deleted":true}}`.
        Deleted200 => "deleted_200",
        /// `204 No Content`.
        NoContent204 => "no_content_204",
    }
}

point! {
    /// `idempotency_header`: the header name the fake reads.
    IdempotencyHeader {
        /// `X-Idempotency-Key`.
        XIdempotencyKey => "x_idempotency_key",
        /// `Idempotency-Key`.
        IdempotencyKey => "idempotency_key",
    }
}

point! {
    /// `line_items` and `account_customer`: whether a relation comes on the single read (and,
    /// for `account_customer`, on the list).
    Embedding {
        /// `account_customer`: embedded on the single read and in the list.
        EmbeddedInLists => "embedded_in_lists",
        /// Embedded on the single-record read.
        EmbeddedOnGet => "embedded_on_get",
        /// `line_items`: only with `include`, which no operation declares: never.
        IncludeOnly => "include_only",
        /// `account_customer`: only when loaded: never.
        WhenLoaded => "when_loaded",
    }
}

point! {
    /// `refund_result`.
    RefundResult {
        /// The refunded payment.
        RefundedPayment => "refunded_payment",
        /// A new payment record for the refund.
        NewPayment => "new_payment",
    }
}

point! {
    /// `rate_limit_headers`.
    RateLimitHeaders {
        /// `X-RateLimit-*`.
        XRateLimit => "x_ratelimit",
        /// `ratelimit-*`.
        RateLimit => "ratelimit",
    }
}

point! {
    /// `payment_codes`: where an open invoice's Pix code and digitable line can be read.
    PaymentCodes {
        /// In the metadata of the invoice's payment awaiting payment (the store's form).
        PaymentMetadata => "payment_metadata",
        /// Only in the `pay` answer: no read carries them (the fake drops them from answers).
        PayAnswerOnly => "pay_answer_only",
    }
}

impl IdempotencyHeader {
    /// The header name, lower case.
    pub fn name(self) -> &'static str {
        match self {
            IdempotencyHeader::XIdempotencyKey => "x-idempotency-key",
            IdempotencyHeader::IdempotencyKey => "idempotency-key",
        }
    }
}

impl Embedding {
    /// Whether the relation is embedded on the single read.
    pub fn embeds(self) -> bool {
        matches!(self, Embedding::EmbeddedOnGet | Embedding::EmbeddedInLists)
    }

    /// Whether an answer of `operation` (a contract id) carries the relation: the single read
    /// when it [`embeds`](Embedding::embeds), the list too under `embedded_in_lists`.
    pub fn carried_by(self, operation: &str) -> bool {
        match self {
            Embedding::EmbeddedInLists => true,
            Embedding::EmbeddedOnGet => !operation.ends_with(".list"),
            Embedding::IncludeOnly | Embedding::WhenLoaded => false,
        }
    }
}

/// One alternative per open point the fake can play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Readings {
    /// `token_issuer`.
    pub token_issuer: TokenIssuer,
    /// `scope_words`.
    pub scope_words: ScopeWords,
    /// `invoice_totals_unit`.
    pub invoice_totals_unit: MoneyUnit,
    /// `line_item_input_unit`.
    pub line_item_input_unit: MoneyUnit,
    /// `datetime_form`.
    pub datetime_form: DateTimeForm,
    /// `due_date_form`.
    pub due_date_form: DueDateForm,
    /// `delete_answer`.
    pub delete_answer: DeleteAnswer,
    /// `idempotency_header`.
    pub idempotency_header: IdempotencyHeader,
    /// `line_items`.
    pub line_items: Embedding,
    /// `account_customer`.
    pub account_customer: Embedding,
    /// `refund_result`.
    pub refund_result: RefundResult,
    /// `rate_limit_headers`.
    pub rate_limit_headers: RateLimitHeaders,
    /// `payment_codes`.
    pub payment_codes: PaymentCodes,
}

/// The ids of the points a profile sets, in the contract's order.
pub const POINTS: [&str; 13] = [
    "token_issuer",
    "scope_words",
    "invoice_totals_unit",
    "line_item_input_unit",
    "datetime_form",
    "due_date_form",
    "delete_answer",
    "idempotency_header",
    "line_items",
    "account_customer",
    "refund_result",
    "rate_limit_headers",
    "payment_codes",
];

impl Default for Readings {
    fn default() -> Self {
        Self::ours()
    }
}

impl Readings {
    /// The default profile.
    pub fn ours() -> Self {
        Readings {
            token_issuer: TokenIssuer::BillingJwt,
            scope_words: ScopeWords::ResourceLevel,
            invoice_totals_unit: MoneyUnit::Subcents,
            line_item_input_unit: MoneyUnit::Subcents,
            datetime_form: DateTimeForm::Offset,
            due_date_form: DueDateForm::SaoPauloMidnight,
            delete_answer: DeleteAnswer::Deleted200,
            idempotency_header: IdempotencyHeader::XIdempotencyKey,
            line_items: Embedding::EmbeddedOnGet,
            account_customer: Embedding::EmbeddedInLists,
            refund_result: RefundResult::RefundedPayment,
            rate_limit_headers: RateLimitHeaders::XRateLimit,
            payment_codes: PaymentCodes::PaymentMetadata,
        }
    }

    /// Every other alternative.
    pub fn others() -> Self {
        Readings {
            token_issuer: TokenIssuer::KobanaAppOauth,
            scope_words: ScopeWords::OtherVocabulary,
            invoice_totals_unit: MoneyUnit::Cents,
            line_item_input_unit: MoneyUnit::Cents,
            datetime_form: DateTimeForm::UtcZ,
            due_date_form: DueDateForm::UtcMidnight,
            delete_answer: DeleteAnswer::NoContent204,
            idempotency_header: IdempotencyHeader::IdempotencyKey,
            line_items: Embedding::IncludeOnly,
            account_customer: Embedding::WhenLoaded,
            refund_result: RefundResult::NewPayment,
            rate_limit_headers: RateLimitHeaders::RateLimit,
            payment_codes: PaymentCodes::PayAnswerOnly,
        }
    }

    /// Whether this is the `ours` profile.
    pub fn is_ours(&self) -> bool {
        *self == Self::ours()
    }

    /// The alternative id played for `point`.
    pub fn get(&self, point: &str) -> Option<&'static str> {
        Some(match point {
            "token_issuer" => self.token_issuer.id(),
            "scope_words" => self.scope_words.id(),
            "invoice_totals_unit" => self.invoice_totals_unit.id(),
            "line_item_input_unit" => self.line_item_input_unit.id(),
            "datetime_form" => self.datetime_form.id(),
            "due_date_form" => self.due_date_form.id(),
            "delete_answer" => self.delete_answer.id(),
            "idempotency_header" => self.idempotency_header.id(),
            "line_items" => self.line_items.id(),
            "account_customer" => self.account_customer.id(),
            "refund_result" => self.refund_result.id(),
            "rate_limit_headers" => self.rate_limit_headers.id(),
            "payment_codes" => self.payment_codes.id(),
            _ => return None,
        })
    }

    /// Plays `alternative` for `point`.
    pub fn set(&mut self, point: &str, alternative: &str) -> Result<(), String> {
        let bad = || format!("{ENV}: {point:?} has no alternative {alternative:?}");
        fn pick<T>(slot: &mut T, value: Option<T>, bad: impl Fn() -> String) -> Result<(), String> {
            *slot = value.ok_or_else(bad)?;
            Ok(())
        }
        let embedding = |allowed: &[Embedding]| {
            Embedding::from_id(alternative)
                .filter(|e| *e == Embedding::EmbeddedOnGet || allowed.contains(e))
        };
        match point {
            "token_issuer" => pick(
                &mut self.token_issuer,
                TokenIssuer::from_id(alternative),
                bad,
            ),
            "scope_words" => pick(&mut self.scope_words, ScopeWords::from_id(alternative), bad),
            "invoice_totals_unit" => pick(
                &mut self.invoice_totals_unit,
                MoneyUnit::from_id(alternative),
                bad,
            ),
            "line_item_input_unit" => pick(
                &mut self.line_item_input_unit,
                MoneyUnit::from_id(alternative),
                bad,
            ),
            "datetime_form" => pick(
                &mut self.datetime_form,
                DateTimeForm::from_id(alternative),
                bad,
            ),
            "due_date_form" => pick(
                &mut self.due_date_form,
                DueDateForm::from_id(alternative),
                bad,
            ),
            "delete_answer" => pick(
                &mut self.delete_answer,
                DeleteAnswer::from_id(alternative),
                bad,
            ),
            "idempotency_header" => pick(
                &mut self.idempotency_header,
                IdempotencyHeader::from_id(alternative),
                bad,
            ),
            "line_items" => pick(
                &mut self.line_items,
                embedding(&[Embedding::IncludeOnly]),
                bad,
            ),
            "account_customer" => pick(
                &mut self.account_customer,
                embedding(&[Embedding::WhenLoaded, Embedding::EmbeddedInLists]),
                bad,
            ),
            "refund_result" => pick(
                &mut self.refund_result,
                RefundResult::from_id(alternative),
                bad,
            ),
            "rate_limit_headers" => pick(
                &mut self.rate_limit_headers,
                RateLimitHeaders::from_id(alternative),
                bad,
            ),
            "payment_codes" => pick(
                &mut self.payment_codes,
                PaymentCodes::from_id(alternative),
                bad,
            ),
            _ => Err(format!(
                "{ENV}: unknown point {point:?}; points: {}",
                POINTS.join(", ")
            )),
        }
    }

    /// Reads a profile: `ours` or `others`, then `point=alternative` overrides, separated by
    /// commas (`others,due_date_form=date_only`). Empty text is `ours`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut parts = text.split(',').map(str::trim).filter(|p| !p.is_empty());
        let mut readings = Readings::ours();
        let mut first = true;
        for part in parts.by_ref() {
            match (part, first) {
                ("ours", true) => {}
                ("others", true) => readings = Readings::others(),
                _ => {
                    let (point, alternative) = part.split_once('=').ok_or_else(|| {
                        format!("{ENV}: expected ours, others or point=alternative, got {part:?}")
                    })?;
                    readings.set(point.trim(), alternative.trim())?;
                }
            }
            first = false;
        }
        Ok(readings)
    }

    /// The profile `KOBANA_FAKE_READINGS` names (`ours` when unset). A profile that does not
    /// read is a mistake of the test set-up: it panics, naming the variable.
    pub fn from_env() -> Self {
        let text = std::env::var(ENV).unwrap_or_default();
        Self::parse(&text).unwrap_or_else(|error| panic!("{error}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::contract;

    /// Every point the fake plays is a reading of the contract with the same alternatives,
    /// and the two profiles play the contract's `fake.ours` and `fake.others`.
    #[test]
    fn the_profiles_are_the_contracts_readings() {
        let played: Vec<&str> = contract()
            .readings
            .iter()
            .filter(|r| r.fake.is_some())
            .map(|r| r.id.as_str())
            .collect();
        assert_eq!(played, POINTS);
        for reading in &contract().readings {
            let Some(fake) = &reading.fake else { continue };
            let ids: Vec<&str> = reading.alternatives.iter().map(|a| a.id.as_str()).collect();
            assert_eq!(Readings::ours().get(&reading.id), Some(fake.ours.as_str()));
            assert_eq!(
                Readings::others().get(&reading.id),
                Some(fake.others.as_str())
            );
            for id in &ids {
                let mut r = Readings::ours();
                assert_eq!(r.set(&reading.id, id), Ok(()), "{}={id}", reading.id);
                assert_eq!(r.get(&reading.id), Some(*id));
            }
            assert!(Readings::ours().set(&reading.id, "nonsense").is_err());
        }
        // docs/contract.md lists every reading.
        let docs = include_str!("../../../docs/contract.md");
        for reading in &contract().readings {
            assert!(
                docs.contains(&format!("**`{}`**", reading.id)),
                "{}",
                reading.id
            );
        }
    }

    #[test]
    fn profiles_parse_with_overrides() {
        assert_eq!(Readings::parse(""), Ok(Readings::ours()));
        assert_eq!(Readings::parse("others"), Ok(Readings::others()));
        let r = Readings::parse("others, due_date_form=date_only").unwrap();
        assert_eq!(r.due_date_form, DueDateForm::DateOnly);
        assert_eq!(r.delete_answer, DeleteAnswer::NoContent204);
        assert!(Readings::parse("theirs").is_err());
        assert!(Readings::parse("ours,line_items=when_loaded").is_err());
        assert!(Readings::parse("ours,nope=x").is_err());
    }
}
