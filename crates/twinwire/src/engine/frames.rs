//! Every frame the engine writes, built from twinwire-protocol's types in one place.

use serde::Serialize;
use serde_json::Value;
use twinwire_protocol::control::{
    ControlCancelRequest, ControlError, ControlFrame, ControlRequest, ControlRequestBody,
    ControlResponse, ControlSuccess, RequestId,
};

use super::HandlerError;

/// One frame as a line: its JSON with `type` first (as the CLI writes it), then `\n`.
pub(crate) fn line<T: Serialize + ?Sized>(frame: &T) -> serde_json::Result<Vec<u8>> {
    let mut line = serde_json::to_vec(frame)?;
    line.push(b'\n');
    Ok(line)
}

/// A `control_request`.
pub(crate) fn request(id: RequestId, body: ControlRequestBody) -> Vec<u8> {
    control(ControlFrame::Request(ControlRequest::new(id, body)))
}

/// A success `control_response` carrying `payload`.
pub(crate) fn success(id: RequestId, payload: Value) -> Vec<u8> {
    let success = ControlSuccess {
        request_id: id,
        response: Some(payload),
        ..ControlSuccess::default()
    };
    control(ControlFrame::Response(success.into()))
}

/// An error `control_response`.
pub(crate) fn failure(id: RequestId, error: &HandlerError) -> Vec<u8> {
    let error = ControlError {
        request_id: id,
        error: error.message.clone(),
        error_code: error.code.as_deref().map(Into::into),
        ..ControlError::default()
    };
    control(ControlFrame::Response(ControlResponse::from(error)))
}

/// A `control_cancel_request` withdrawing one of our requests.
pub(crate) fn cancel(id: RequestId) -> Vec<u8> {
    control(ControlFrame::Cancel(ControlCancelRequest {
        request_id: id,
        ..ControlCancelRequest::default()
    }))
}

fn control(frame: ControlFrame) -> Vec<u8> {
    // Plain data with string keys (payloads are already JSON values): this cannot fail.
    line(&frame).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_written_type_first_and_keep_the_id_type() {
        let text = |bytes: Vec<u8>| String::from_utf8(bytes).unwrap();
        assert_eq!(
            text(success(RequestId::from(7), serde_json::json!({"ok": true}))),
            "{\"type\":\"control_response\",\"response\":{\"subtype\":\"success\",\"request_id\":7,\"response\":{\"ok\":true}}}\n"
        );
        let error = HandlerError::unsupported("x");
        let written = text(failure(RequestId::from("r"), &error));
        assert!(written.starts_with("{\"type\":\"control_response\",\"response\":{\"subtype\":\"error\",\"request_id\":\"r\""));
        assert!(written.contains("\"error_code\":\"unsupported_request\""));
        assert_eq!(
            text(cancel(RequestId::from("req_1"))),
            "{\"type\":\"control_cancel_request\",\"request_id\":\"req_1\"}\n"
        );
        let body = ControlRequestBody::Interrupt(Default::default());
        assert_eq!(
            text(request(RequestId::from("req_2"), body)),
            "{\"type\":\"control_request\",\"request_id\":\"req_2\",\"request\":{\"subtype\":\"interrupt\"}}\n"
        );
    }
}
