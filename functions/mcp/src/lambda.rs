//! The Lambda entry point: every API Gateway event is one request to the app, answered with a
//! streamed response (so bodies over Lambda's 6 MB buffered limit work).
//!
//! Each request carries what API Gateway reported about it ([`GatewayContext`]: the domain
//! the client reached and the path it asked for), from which the app names its endpoint when
//! `MCP_PUBLIC_URL` is unset, instead of the `Host` header the client wrote.

use kobana_mcp::App;
use kobana_mcp::http::GatewayContext;
use kobana_mcp::telemetry::RequestId;
use lambda_http::request::RequestContext;
use lambda_http::{Error, Request, RequestExt, service_fn};
use tracing::Instrument;

/// Runs the Lambda runtime loop until the environment shuts the function down. Every log
/// line of an invocation, and its request line, carries its Lambda request id.
pub async fn run(app: App) -> Result<(), Error> {
    lambda_http::run_with_streaming_response(service_fn(move |mut request: Request| {
        let app = app.clone();
        let request_id = request
            .lambda_context_ref()
            .map(|context| context.request_id.clone())
            .unwrap_or_default();
        let span = tracing::info_span!("invocation", request_id = %request_id);
        if let Some(gateway) = request.request_context_ref().and_then(gateway) {
            request.extensions_mut().insert(gateway);
        }
        request.extensions_mut().insert(RequestId(request_id));
        async move { Ok::<_, Error>(app.handle(request).await) }.instrument(span)
    }))
    .await
}

/// The domain and path API Gateway saw: payload 1.0 (REST API) or 2.0 (HTTP API, Function
/// URL). `None` for any other event source.
fn gateway(context: &RequestContext) -> Option<GatewayContext> {
    match context {
        RequestContext::ApiGatewayV1(v1) => Some(GatewayContext {
            domain_name: v1.domain_name.clone(),
            path: v1.path.clone(),
        }),
        RequestContext::ApiGatewayV2(v2) => Some(GatewayContext {
            domain_name: v2.domain_name.clone(),
            path: v2.http.path.clone(),
        }),
        _ => None,
    }
}
