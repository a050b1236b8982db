//! The smallest streaming `lambda_http` function: answers every event with a fixed JSON body.
//! It runs the same entry point as `kobana-mcp` under Lambda (`run_with_streaming_response`),
//! so the cold-start comparison isolates what our binary adds.

use lambda_http::{Body, Error, Request, Response, service_fn};

#[tokio::main]
async fn main() -> Result<(), Error> {
    lambda_http::run_with_streaming_response(service_fn(|_request: Request| async {
        Response::builder()
            .status(200)
            .header("content-type", "application/json")
            .body(Body::from(r#"{"hello":"world"}"#))
            .map_err(Error::from)
    }))
    .await
}
