//! The redaction suite's secrets, for the tests of what is kept at rest (stores, the
//! transcript mirror, `twinwire sessions scrub`): each in the context that makes it a secret
//! (`twinwire tap`'s redaction suite, `crates/cli/tests/redaction.rs`, reads the same shapes),
//! and [`leaks`], which finds any of them in bytes.

use serde_json::{json, Value};

/// An Anthropic API key (a known prefix).
pub const API_KEY: &str =
    "sk-ant-api03-Zx9wVu8tSr7qPo6nMl5kJi4hGf3eDc2bA1-Qq8Rr7Ss6Tt5Uu4Vv3Ww2Xx1Yy0Zz9_AaBbCcDdEeFf";
/// A GitHub token (a known prefix).
pub const GITHUB_TOKEN: &str = "ghp_R2d2C3poBb8Ll3Ee9Yy1Kk4Jj7Hh6Gg5Ff0Dd2Ss";
/// The token after `Bearer `.
pub const BEARER: &str = "eyJhbGciOiJIUzI1NiJ9.bearer-body-7f3a9c";
/// The value after `x-api-key:` in a header line.
pub const HEADER_KEY: &str = "xk-1234567890-header-value";
/// A cookie's value.
pub const COOKIE: &str = "sid-cookie-value-5e8b2d";
/// A password under a secret-named key in JSON.
pub const PASSWORD: &str = "correct-horse-battery-staple-42";
/// A client secret under a camelCase secret-named key, two layers of escaped JSON deep.
pub const DEEP_SECRET: &str = "pk-deep-layer-secret-91d3";
/// The body of a PEM private key (one line of it).
pub const PEM_LINE: &str = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7pem";
/// The name of an environment variable whose value is secret.
pub const ENV_NAME: &str = "SERVICE_DEPLOY_TOKEN";
/// Its value: nothing but the variable's name marks it (the carriers show it alone, as
/// `echo $SERVICE_DEPLOY_TOKEN` would).
pub const ENV_VALUE: &str = "plain-looking-env-value-73c1";

/// Every secret value: none may be found in what is kept.
pub const ALL: [&str; 9] = [
    API_KEY,
    GITHUB_TOKEN,
    BEARER,
    HEADER_KEY,
    COOKIE,
    PASSWORD,
    DEEP_SECRET,
    PEM_LINE,
    ENV_VALUE,
];

/// A text that holds every secret in its context, as a prompt, a reply or a command's output
/// would.
pub fn text() -> String {
    let nested = json!({"raw": json!({"clientSecret": DEEP_SECRET}).to_string()}).to_string();
    format!(
        "key {API_KEY} and {GITHUB_TOKEN}\n\
         Authorization: Bearer {BEARER}\n\
         x-api-key: {HEADER_KEY}\n\
         Cookie: sid={COOKIE}; theme=dark\n\
         config {}\n\
         nested {nested}\n\
         -----BEGIN PRIVATE KEY-----\n{PEM_LINE}\n-----END PRIVATE KEY-----\n\
         deployed with {ENV_VALUE}",
        json!({"password": PASSWORD}),
    )
}

/// A JSON value that holds every secret, under secret-named keys and in strings.
pub fn json() -> Value {
    json!({
        "note": text(),
        "password": PASSWORD,
        "headers": {"x-api-key": HEADER_KEY, "Cookie": format!("sid={COOKIE}")},
        "raw": json!({"clientSecret": DEEP_SECRET}).to_string(),
    })
}

/// The secrets found in `bytes`, each as it is written (a search of the raw bytes: a file, a
/// database, its journal).
pub fn leaks(bytes: &[u8]) -> Vec<&'static str> {
    ALL.iter()
        .copied()
        .filter(|secret| {
            bytes
                .windows(secret.len())
                .any(|window| window == secret.as_bytes())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_carriers_hold_every_secret_and_the_redactor_takes_them_all() {
        let text = text();
        assert_eq!(leaks(text.as_bytes()), ALL.to_vec());
        let redactor = twinwire::redact::Redactor::from_env([(ENV_NAME, ENV_VALUE)]);
        let mut value = json();
        assert!(redactor.value(&mut value) >= ALL.len());
        assert_eq!(leaks(value.to_string().as_bytes()), Vec::<&str>::new());
        // Without the variable's name, its value is not known to be secret.
        let mut value = json();
        twinwire::redact::Redactor::default().value(&mut value);
        assert_eq!(leaks(value.to_string().as_bytes()), vec![ENV_VALUE]);
    }
}
