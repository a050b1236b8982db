//! What the operator sees: the request line (OP-1), CloudWatch metrics (OP-2), and every
//! log line of whole runs scanned for arguments, tokens and controls (A-3, BW-3).

mod log_scan;
mod metrics;
mod request_log;
mod secrets;
