//! The binary's own commands as a newcomer and an operator run them: the demo's first
//! hour (`--demo`, `--version`, FH-1 … FH-6) and `kobana-mcp check` (RK-6).

mod check;
mod first_hour;
