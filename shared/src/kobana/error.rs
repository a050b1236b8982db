//! What can go wrong talking to Kobana.

use serde_json::Value;

/// A failed Kobana call.
#[derive(Debug, Clone, thiserror::Error)]
pub enum KobanaError {
    /// Kobana answered with an error envelope (or a bare error status).
    #[error("Kobana HTTP {status} {code}: {message}")]
    Api {
        /// HTTP status.
        status: u16,
        /// Kobana's stable error code (`invalid_token`, `insufficient_scope`, `not_found`,
        /// `validation_error`, `invalid_state`, `rate_limited`, `internal_error`, …).
        code: String,
        /// Kobana's message (pt-BR).
        message: String,
        /// Error-specific details (e.g. `{required, granted}` or `{field: [msgs]}`).
        details: Option<Value>,
        /// Kobana's `Request-Id`, for support.
        request_id: Option<String>,
        /// Seconds to wait, from `Retry-After`.
        retry_after: Option<u64>,
    },
    /// The call did not finish within the deadline (retries included).
    #[error("Kobana did not answer within {0} ms")]
    Timeout(u128),
    /// The connection failed or broke.
    #[error("could not reach Kobana: {0}")]
    Unreachable(String),
    /// Kobana answered something that is not the documented shape.
    #[error("unexpected answer from Kobana (HTTP {status}): {reason}")]
    InvalidResponse {
        /// HTTP status.
        status: u16,
        /// What was wrong.
        reason: String,
    },
    /// A successful JSON answer larger than this server reads
    /// ([`crate::config::WorkLimits::max_json_bytes`]).
    #[error("Kobana's answer exceeds the {limit}-byte limit")]
    AnswerTooLarge {
        /// The limit.
        limit: u64,
    },
    /// The request's work budget has no call left (retries included): nothing was sent.
    #[error("the request has made its {calls} Kobana calls")]
    BudgetSpent {
        /// The limit of calls per request.
        calls: u32,
    },
    /// The document is larger than this server serves.
    #[error("document of {size} bytes exceeds the {limit}-byte limit")]
    TooLarge {
        /// Size announced or counted so far.
        size: u64,
        /// The limit.
        limit: u64,
    },
}

impl KobanaError {
    /// Whether a safe (read or idempotent) call may be retried after this error.
    pub fn is_retryable(&self) -> bool {
        match self {
            KobanaError::Api { status, .. } => matches!(status, 429 | 500 | 502 | 503 | 504),
            KobanaError::Unreachable(_) | KobanaError::InvalidResponse { .. } => true,
            KobanaError::Timeout(_)
            | KobanaError::TooLarge { .. }
            | KobanaError::AnswerTooLarge { .. }
            | KobanaError::BudgetSpent { .. } => false,
        }
    }

    /// Whether a write that failed this way may nevertheless have been applied by Kobana: the
    /// request left (or may have left) and no answer saying otherwise came back — a timeout,
    /// a connection broken after it was opened, a success status whose body could not be
    /// read. An error answer from Kobana, or a connection that never opened, is not.
    pub fn may_have_applied(&self) -> bool {
        match self {
            KobanaError::Timeout(_) => true,
            KobanaError::Unreachable(reason) => {
                !(reason.starts_with(super::answer::CONNECT_FAILED)
                    || reason.starts_with("HTTP client"))
            }
            KobanaError::InvalidResponse { status, .. } => (200..300).contains(status),
            // A success whose body was too large to read: the write was applied.
            KobanaError::AnswerTooLarge { .. } => true,
            KobanaError::Api { .. }
            | KobanaError::TooLarge { .. }
            | KobanaError::BudgetSpent { .. } => false,
        }
    }

    /// The HTTP status Kobana answered, if it answered.
    pub fn status(&self) -> Option<u16> {
        match self {
            KobanaError::Api { status, .. } | KobanaError::InvalidResponse { status, .. } => {
                Some(*status)
            }
            _ => None,
        }
    }

    /// Kobana's error code, if it answered with one.
    pub fn code(&self) -> Option<&str> {
        match self {
            KobanaError::Api { code, .. } => Some(code),
            _ => None,
        }
    }
}
