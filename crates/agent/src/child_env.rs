//! The environment of every process the agent starts for the model or the user's
//! configuration (Bash and its background jobs, hooks, stdio MCP servers): the session's own,
//! less the credentials. The agent needs its API key to call the model; the commands the model
//! writes do not, and whatever they print goes back into the model's context (`env`,
//! `printenv`, `/proc/self/environ`). So the variables Claude Code's
//! `CLAUDE_CODE_SUBPROCESS_ENV_SCRUB` removes, and the agent's own key variables, are removed
//! from every child by default (Claude Code removes them only when that variable is set).
//!
//! Opt-out: `CLAUDE_CODE_SUBPROCESS_ENV_SCRUB` set to `0`, `false`, `no` or `off` in the
//! environment the agent is started in leaves the environment whole (the `env` of a settings
//! file cannot turn the removal off: a repository could carry one).

use std::collections::BTreeMap;

use tokio::process::Command;

/// The variable that turns the removal off when it reads as false.
pub const SCRUB_VARIABLE: &str = "CLAUDE_CODE_SUBPROCESS_ENV_SCRUB";

/// Variables removed by name: the Anthropic credentials (the agent's own `ANTHROPIC_API_KEY`
/// and `ANTHROPIC_AUTH_TOKEN` among them), headers that carry tokens, cloud credentials and the
/// CI runner's token requests.
pub const REMOVED: &[&str] = &[
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "ANTHROPIC_FOUNDRY_API_KEY",
    "ANTHROPIC_CUSTOM_HEADERS",
    "OTEL_EXPORTER_OTLP_HEADERS",
    "OTEL_EXPORTER_OTLP_LOGS_HEADERS",
    "OTEL_EXPORTER_OTLP_METRICS_HEADERS",
    "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_BEARER_TOKEN_BEDROCK",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "AZURE_CLIENT_SECRET",
    "AZURE_CLIENT_CERTIFICATE_PATH",
    "AZURE_CLIENT_CERTIFICATE_PASSWORD",
    "AZURE_PASSWORD",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
    "ACTIONS_ID_TOKEN_REQUEST_URL",
    "ACTIONS_RUNTIME_TOKEN",
];

/// Whether a variable is kept from children: named in [`REMOVED`], or a cloud provider's
/// variable that names a secret (`AWS_…SECRET…`, `AZURE_…SECRET…`), whatever its exact name.
pub fn is_removed(name: &str) -> bool {
    if REMOVED.contains(&name) {
        return true;
    }
    let upper = name.to_ascii_uppercase();
    (upper.starts_with("AWS_") || upper.starts_with("AZURE_")) && upper.contains("SECRET")
}

/// Whether the session's environment `env` asks for the credentials to be removed (the
/// default: only an explicit false value turns it off).
pub fn scrubs(env: &BTreeMap<String, String>) -> bool {
    !env.get(SCRUB_VARIABLE).is_some_and(|value| {
        matches!(
            value.trim().to_ascii_lowercase().as_str(),
            "0" | "false" | "no" | "off"
        )
    })
}

/// Gives `command` the session's environment `env` over the process's own, the credentials
/// removed from both unless [`scrubs`] says otherwise.
pub fn apply(command: &mut Command, env: &BTreeMap<String, String>) {
    if !scrubs(env) {
        command.envs(env);
        return;
    }
    // The variables this process has (a host running the agent in its own process may hold
    // more than the session's map) and the session's, each removed if it is a credential.
    for (name, _) in std::env::vars_os() {
        if name.to_str().is_some_and(is_removed) {
            command.env_remove(name);
        }
    }
    for name in REMOVED {
        command.env_remove(name);
    }
    command.envs(env.iter().filter(|(name, _)| !is_removed(name)));
}

/// The session's environment `env` with the credentials removed (unless [`scrubs`] says
/// otherwise), for a child that starts from an empty environment.
pub fn scrubbed(env: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    if !scrubs(env) {
        return env.clone();
    }
    env.iter()
        .filter(|(name, _)| !is_removed(name))
        .map(|(name, value)| (name.clone(), value.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_go_and_the_rest_stays() {
        let env: BTreeMap<String, String> = [
            ("ANTHROPIC_API_KEY", "k"),
            ("AWS_SECRET_ACCESS_KEY", "s"),
            ("AWS_MY_SECRET_THING", "s"),
            ("AWS_REGION", "eu"),
            ("GITHUB_TOKEN", "g"),
            ("PATH", "/bin"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        let kept: Vec<_> = scrubbed(&env).into_keys().collect();
        assert_eq!(kept, ["AWS_REGION", "GITHUB_TOKEN", "PATH"]);
    }

    #[test]
    fn only_a_false_value_turns_the_removal_off() {
        let with = |value: &str| {
            [(SCRUB_VARIABLE.to_owned(), value.to_owned())]
                .into_iter()
                .collect::<BTreeMap<_, _>>()
        };
        assert!(scrubs(&BTreeMap::new()));
        assert!(scrubs(&with("1")));
        assert!(scrubs(&with("")));
        for off in ["0", "false", "No", " off "] {
            assert!(!scrubs(&with(off)), "{off}");
        }
    }
}
