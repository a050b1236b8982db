//! MCP over HTTP end to end against the in-process server: both eras, authentication and
//! bad input over raw HTTP, unknown methods, tool errors, resources and completions, prompts,
//! the endpoint's identity, origins, and many requests at once.

mod endpoint_identity;
mod load;
mod origin_grammar;
mod prompts;
mod raw_http;
mod resources;
mod tool_errors;
mod unknown_method;
