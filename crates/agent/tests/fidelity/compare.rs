//! Each step of a case as the model saw it from each CLI (its calls' results, with `is_error`,
//! and whatever else came with them: reminders, notices), with the step's effect on the tree;
//! and the verdict when the two are put side by side.

use serde_json::Value;

use crate::normalize::Normalizer;
use crate::run::{after_step, trees_around, Run};
use crate::tree::changes;

/// One step as one CLI gave it, normalized.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Observation {
    /// Per call, in the order of the calls: whether it failed, and its result.
    pub results: Vec<(bool, String)>,
    /// Everything else the model was sent with the results, a line per block.
    pub extra: Vec<String>,
    /// The changes to the tree.
    pub effect: Vec<String>,
    /// Why there is nothing to compare (the run ended before the step).
    pub missing: Option<String>,
}

/// How two observations of a step compare, worst first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Verdict {
    /// A call failed on one side and not on the other, or one side did not get there.
    Error,
    /// The tree changed otherwise.
    Effect,
    /// The same outcome said otherwise (text, reminders).
    Format,
    /// The same.
    Identical,
}

impl Verdict {
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Error => "error behaviour",
            Verdict::Effect => "effect",
            Verdict::Format => "format",
            Verdict::Identical => "identical",
        }
    }
}

/// Step `label` of `run`, normalized.
pub fn observe(run: &Run, label: &str) -> Observation {
    let norm = Normalizer::new(&run.root, &run.web);
    let Some((reply, after)) = after_step(run, label) else {
        return Observation {
            missing: Some(
                run.failure
                    .clone()
                    .unwrap_or_else(|| "the step's results never reached the model".to_owned()),
            ),
            ..Observation::default()
        };
    };
    let ids: Vec<String> = reply["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|b| b["type"] == "tool_use")
        .filter_map(|b| b["id"].as_str().map(str::to_owned))
        .collect();
    let mut results: Vec<Option<(bool, String)>> = vec![None; ids.len()];
    let mut extra = Vec::new();
    for message in &after {
        let role = message["role"].as_str().unwrap_or("?");
        let blocks: Vec<Value> = match &message["content"] {
            Value::String(text) => vec![serde_json::json!({"type": "text", "text": text})],
            Value::Array(blocks) => blocks.clone(),
            _ => Vec::new(),
        };
        for block in blocks {
            if block["type"] == "tool_result" {
                let id = block["tool_use_id"].as_str().unwrap_or_default();
                if let Some(at) = ids.iter().position(|known| known == id) {
                    if results[at].is_none() {
                        results[at] =
                            Some((block["is_error"] == true, norm.content(&block["content"])));
                        continue;
                    }
                }
            }
            extra.push(format!("{role}: {}", norm.block(&block)));
        }
    }
    for id in &ids {
        if let Some((_, tool)) = run.asked.iter().find(|(asked, _)| asked == id) {
            extra.push(format!("asked the host about {tool}"));
        }
    }
    let effect = trees_around(run, label)
        .map(|(before, after)| {
            changes(before, after)
                .iter()
                .map(|line| norm.text(line))
                .collect()
        })
        .unwrap_or_else(|| vec!["(no photograph of the tree)".to_owned()]);
    Observation {
        results: results
            .into_iter()
            .map(|r| r.unwrap_or((true, "(no result)".to_owned())))
            .collect(),
        extra,
        effect,
        missing: None,
    }
}

/// The verdict on two observations of the same step.
pub fn verdict(claude: &Observation, agent: &Observation) -> Verdict {
    if claude.missing.is_some() || agent.missing.is_some() {
        return if claude.missing.is_some() && agent.missing.is_some() {
            Verdict::Identical
        } else {
            Verdict::Error
        };
    }
    let errors = |o: &Observation| o.results.iter().map(|(e, _)| *e).collect::<Vec<_>>();
    if errors(claude) != errors(agent) {
        return Verdict::Error;
    }
    if claude.effect != agent.effect {
        return Verdict::Effect;
    }
    if claude != agent {
        return Verdict::Format;
    }
    Verdict::Identical
}

/// The two observations side by side, for a failure message.
pub fn show(claude: &Observation, agent: &Observation) -> String {
    let mut out = String::new();
    for (side, o) in [("claude", claude), ("agent ", agent)] {
        if let Some(why) = &o.missing {
            out.push_str(&format!("    {side} | (missing: {why})\n"));
            continue;
        }
        for (i, (error, text)) in o.results.iter().enumerate() {
            let flag = if *error { "error" } else { "ok" };
            out.push_str(&format!(
                "    {side} | result {i} ({flag}): {}\n",
                clip(text)
            ));
        }
        for line in &o.extra {
            out.push_str(&format!("    {side} | with: {}\n", clip(line)));
        }
        for line in &o.effect {
            out.push_str(&format!("    {side} | tree: {}\n", clip(line)));
        }
    }
    out
}

fn clip(text: &str) -> String {
    let text: String = text.chars().take(1500).collect();
    format!("{text:?}")
}
