//! `apply_flag_settings` and `get_settings`, over a small interface: the settings a session
//! sees are layers, low to high precedence, each a source's name (as Claude Code names them:
//! `userSettings`, `projectSettings`, `localSettings`, `flagSettings`, `policySettings`) and
//! its settings; the effective settings merge them key by key. The files' layers are read
//! with twinwire's resolver; `--settings` and what the host applied are `flagSettings`. Of
//! what the host applies, `model` changes the session's model at once.

use std::path::Path;

use serde_json::{Map, Value};
use twinwire::options::SettingSource;
use twinwire::settings::{resolve_settings, ResolveOptions};
use twinwire_protocol::control::{AppliedSettings, GetSettingsResponse, SettingsSourceEntry};

use crate::config::Config;

/// One layer: where the settings came from, and what they say.
pub(crate) type Layer = (String, Map<String, Value>);

/// The layers a session sees: the settings files, then the flags (`--settings` with what the
/// host applied over it).
pub(crate) fn layers(
    config: &Config,
    config_dir: &Path,
    applied: &Map<String, Value>,
) -> Vec<Layer> {
    let mut options = ResolveOptions::in_dir(&config.cwd).config_dir(config_dir);
    if let Some(sources) = &config.setting_sources {
        options = options.setting_sources(sources.iter().map(|s| SettingSource::from(s.as_str())));
    }
    let resolved = resolve_settings(&options);
    let mut layers: Vec<Layer> = resolved
        .sources
        .into_iter()
        .filter_map(|source| {
            let value = serde_json::to_value(&source).ok()?;
            let name = value["source"].as_str()?.to_owned();
            let settings = value["settings"].as_object()?.clone();
            Some((format!("{name}Settings"), settings))
        })
        .collect();
    let mut flags = config
        .settings
        .as_ref()
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    merge(&mut flags, applied);
    if !flags.is_empty() {
        layers.push(("flagSettings".to_owned(), flags));
    }
    layers
}

/// Adds what the host applied to the flags applied before: a key set to `null` is removed.
pub(crate) fn apply(flags: &mut Map<String, Value>, settings: Map<String, Value>) {
    for (key, value) in settings {
        if value.is_null() {
            flags.remove(&key);
        } else {
            flags.insert(key, value);
        }
    }
}

fn merge(into: &mut Map<String, Value>, over: &Map<String, Value>) {
    for (key, value) in over {
        into.insert(key.clone(), value.clone());
    }
}

/// The answer to `get_settings`: the layers merged, each layer, and what the session runs
/// with.
pub(crate) fn answer(layers: Vec<Layer>, model: &str) -> GetSettingsResponse {
    let mut effective = Map::new();
    for (_, settings) in &layers {
        merge(&mut effective, settings);
    }
    GetSettingsResponse {
        effective: Some(effective),
        sources: Some(
            layers
                .into_iter()
                .map(|(source, settings)| SettingsSourceEntry {
                    source,
                    settings,
                    ..SettingsSourceEntry::default()
                })
                .collect(),
        ),
        applied: Some(AppliedSettings {
            model: Some(Some(model.to_owned())),
            ..AppliedSettings::default()
        }),
        ..GetSettingsResponse::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn applied_flags_are_a_layer_over_the_files_and_null_removes() {
        let dir = tempfile::tempdir().unwrap();
        let config = Config {
            cwd: dir.path().to_owned(),
            settings: Some(json!({"effortLevel": "high", "model": "a"})),
            ..Config::default()
        };
        let mut flags = Map::new();
        apply(
            &mut flags,
            json!({"model": "claude-haiku-4-5"})
                .as_object()
                .unwrap()
                .clone(),
        );
        apply(
            &mut flags,
            json!({"effortLevel": null}).as_object().unwrap().clone(),
        );
        let layers = layers(&config, &dir.path().join("home"), &flags);
        let answer = answer(layers, "claude-haiku-4-5");
        let effective = answer.effective.unwrap();
        assert_eq!(effective["model"], "claude-haiku-4-5");
        assert_eq!(
            effective["effortLevel"], "high",
            "null removes an applied key only"
        );
        assert_eq!(answer.sources.unwrap()[0].source, "flagSettings");
    }
}
