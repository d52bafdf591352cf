//! Control frames read together: a success response is checked as the typed response of the
//! request it answers, and a `request_id` a client put in the wrong place is explained.
//!
//! A client that puts its `request_id` inside `request`
//! (`{"type":"control_request","request":{"subtype":"mcp_status","request_id":"r1"}}`) still
//! gets an answer from Claude Code, but one with no `request_id` at all (2.1.330 reads the id
//! at the top level only, and answers with what it found there: nothing). Neither frame fits
//! the schema, yet a real CLI wrote one of them and nothing in either is lost, so both are
//! warnings with the reason: the client's frame is read with the id moved to the top level,
//! and the CLI's answer with the id of the request it answers (when only one such request is
//! waiting; otherwise its payload is read but not matched).

use std::collections::{HashMap, VecDeque};

use serde_json::Value;
use twinwire_protocol::{coverage, DecodeError};

use super::Direction;

/// How many requests wait for their answer at most; more are not matched (a file of requests
/// without answers must not fill memory).
const MAX_WAITING: usize = 10_000;

/// The control requests of one file that wait for their answer.
#[derive(Default)]
pub struct Correlation {
    /// (sent by the host, request id) → the request's subtype.
    pending: HashMap<(bool, String), String>,
    /// The host's requests with their id inside `request`: (line, id), oldest first.
    misplaced: VecDeque<(u64, Value)>,
}

/// A frame that deviates from the schema the way real peers do.
#[derive(Debug)]
pub struct Deviation {
    /// Why it is only a warning.
    pub reason: String,
    /// The frame as it would have been.
    pub frame: Value,
}

impl Correlation {
    /// If `frame` (at `line`) is a host's request with its id inside `request`, or the CLI's
    /// answer without a `request_id`: why, and the frame as it would have been.
    pub fn misplaced_id(
        &mut self,
        direction: Direction,
        line: u64,
        frame: &Value,
    ) -> Option<Deviation> {
        let kind = frame.get("type").and_then(Value::as_str);
        match (direction, kind) {
            (Direction::In, Some("control_request")) => {
                if frame.get("request_id").is_some() {
                    return None;
                }
                let id = frame.pointer("/request/request_id")?.clone();
                let mut fixed = frame.clone();
                fixed["request_id"] = id.clone();
                if let Some(request) = fixed.get_mut("request").and_then(Value::as_object_mut) {
                    request.remove("request_id");
                }
                if self.misplaced.len() < MAX_WAITING {
                    self.misplaced.push_back((line, id));
                }
                Some(Deviation {
                    reason: "`request_id` is inside `request`: it belongs at the top level, \
                             and Claude Code answers such a request with no `request_id`"
                        .to_owned(),
                    frame: fixed,
                })
            }
            (Direction::Out, Some("control_response")) => {
                let response = frame.get("response")?.as_object()?;
                if response.contains_key("request_id") {
                    return None;
                }
                let why = "no `request_id`: Claude Code answers so a request that had its \
                           `request_id` inside `request`";
                let (reason, id) = match self.misplaced.len() {
                    0 => (format!("{why} (none was seen in this file)"), None),
                    1 => {
                        let (at, id) = self.misplaced.pop_front()?;
                        (format!("{why} (line {at})"), Some(id))
                    }
                    waiting => {
                        let (at, _) = self.misplaced.pop_front()?;
                        let reason = format!(
                            "{why} (one of {waiting} such requests, the first at line {at}; \
                             its answer is not matched)"
                        );
                        (reason, None)
                    }
                };
                let mut fixed = frame.clone();
                fixed["response"]["request_id"] =
                    id.unwrap_or_else(|| Value::String(String::new()));
                Some(Deviation {
                    reason,
                    frame: fixed,
                })
            }
            _ => None,
        }
    }

    /// Remembers a control request, or checks a success response against the typed response
    /// of the request it answers.
    pub fn observe(
        &mut self,
        direction: Direction,
        frame: &Value,
        responses_checked: &mut usize,
    ) -> Result<(), DecodeError> {
        let from_host = direction == Direction::In;
        match frame.get("type").and_then(Value::as_str) {
            Some("control_request") => {
                let id = frame.get("request_id").and_then(Value::as_str);
                let subtype = frame.pointer("/request/subtype").and_then(Value::as_str);
                if let (Some(id), Some(subtype)) = (id, subtype) {
                    if self.pending.len() < MAX_WAITING {
                        self.pending
                            .insert((from_host, id.to_owned()), subtype.to_owned());
                    }
                }
                Ok(())
            }
            Some("control_response") => {
                let Some(id) = frame
                    .pointer("/response/request_id")
                    .and_then(Value::as_str)
                else {
                    return Ok(());
                };
                // The response travels the other way from its request.
                let Some(subtype) = self.pending.remove(&(!from_host, id.to_owned())) else {
                    return Ok(());
                };
                let is_success =
                    frame.pointer("/response/subtype").and_then(Value::as_str) == Some("success");
                match (is_success, frame.pointer("/response/response")) {
                    (true, Some(payload)) => {
                        if let Some(result) = coverage::check_response(&subtype, payload) {
                            *responses_checked += 1;
                            result?;
                        }
                        Ok(())
                    }
                    _ => Ok(()),
                }
            }
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_nested_id_and_the_answer_without_one_are_explained_and_matched() {
        let mut session = Correlation::default();
        let request = json!({"type": "control_request",
            "request": {"subtype": "mcp_status", "request_id": "r1"}});
        let deviation = session.misplaced_id(Direction::In, 2, &request).unwrap();
        assert_eq!(
            deviation.frame,
            json!({"type": "control_request", "request_id": "r1",
                "request": {"subtype": "mcp_status"}})
        );
        let answer = json!({"type": "control_response",
            "response": {"subtype": "success", "response": {"mcpServers": []}}});
        let deviation = session.misplaced_id(Direction::Out, 3, &answer).unwrap();
        assert!(
            deviation.reason.ends_with("(line 2)"),
            "{}",
            deviation.reason
        );
        assert_eq!(deviation.frame["response"]["request_id"], "r1");

        // A host's answer without an id is no deviation of a real peer: it stays an error.
        assert!(session.misplaced_id(Direction::In, 4, &answer).is_none());
        // Frames with their ids in place are left alone.
        let fine = json!({"type": "control_request", "request_id": "r2",
            "request": {"subtype": "mcp_status"}});
        assert!(session.misplaced_id(Direction::In, 5, &fine).is_none());
        // An answer with no such request waiting is read, and says so.
        let deviation = session.misplaced_id(Direction::Out, 6, &answer).unwrap();
        assert!(
            deviation.reason.contains("none was seen"),
            "{}",
            deviation.reason
        );
    }

    #[test]
    fn requests_waiting_for_answers_are_bounded() {
        let mut session = Correlation::default();
        let mut checked = 0;
        for n in 0..MAX_WAITING + 50 {
            let request = json!({"type": "control_request", "request_id": n.to_string(),
                "request": {"subtype": "mcp_status"}});
            session
                .observe(Direction::In, &request, &mut checked)
                .unwrap();
            let nested = json!({"type": "control_request",
                "request": {"subtype": "mcp_status", "request_id": n}});
            session.misplaced_id(Direction::In, 1, &nested).unwrap();
        }
        assert_eq!(session.pending.len(), MAX_WAITING);
        assert_eq!(session.misplaced.len(), MAX_WAITING);
    }
}
