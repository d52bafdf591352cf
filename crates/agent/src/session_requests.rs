//! The host's requests about the session's files, settings, commands and background work:
//! `rewind_files`, `seed_read_state`, `apply_flag_settings`, `get_settings`, `reload_skills`,
//! `reload_plugins`, `reload_output_styles`, `stop_task`, `cancel_async_message`.

use std::path::Path;
use std::time::{Duration, UNIX_EPOCH};

use twinwire::agent::frames::new_id;
use twinwire::agent::Peer;
use twinwire::engine::HandlerError;
use twinwire_protocol::control::{
    ApplyFlagSettingsRequest, CancelAsyncMessageResponse, GetSettingsResponse,
    GetTaskOutputResponse, RegisterRepoRootRequest, ReloadOutputStylesResponse,
    ReloadPluginsResponse, ReloadSkillsResponse, RewindFilesResponse, SeedReadStateRequest,
};
use twinwire_protocol::events::CommandLifecycle;
use twinwire_protocol::system::{CommandsChanged, SystemMessage};
use twinwire_protocol::Message;

use crate::commands;
use crate::config::resolve_alias;
use crate::flag_settings;
use crate::session::Session;

/// `register_repo_root`: a repository the host cloned or found during the session becomes one
/// of its directories (read, and in `acceptEdits` edited, without asking), and unless the
/// host says otherwise its CLAUDE.md files join the memory from the next model call on.
pub(crate) fn register_repo_root(
    session: &Session,
    request: &RegisterRepoRootRequest,
) -> Result<(), HandlerError> {
    let dir = session.workspace.resolve(&request.directory);
    if !dir.is_dir() {
        return Err(HandlerError::new(format!(
            "{} is not a directory",
            dir.display()
        )));
    }
    let dir = std::fs::canonicalize(&dir).unwrap_or(dir);
    let home = session.config.env.get("HOME").map(Path::new);
    let mut state = session.state();
    state.permissions.add_dir(dir.clone());
    if request.reload_claude_md != Some(false) {
        let added = crate::memory::read_root(&dir, home, &state.memory);
        tracing::debug!(root = %dir.display(), files = added.len(), "memory of a registered repository");
        state.memory.extend(added);
    }
    Ok(())
}

/// `background_tasks`: the commands running in the foreground (every one, or the one of
/// `tool_use_id`) go on as background jobs; their calls end at once. Whether any command was
/// running to be moved.
pub(crate) fn background_tasks(session: &Session, tool_use_id: Option<String>) -> bool {
    session.workspace.jobs.request_move(tool_use_id)
}

/// `get_task_output`: the end of a Bash job's output.
pub(crate) fn task_output(
    session: &Session,
    task_id: &str,
) -> Result<GetTaskOutputResponse, HandlerError> {
    match session.workspace.jobs.output_tail(task_id) {
        Some(Ok((output, total_bytes, truncated))) => Ok(GetTaskOutputResponse {
            output,
            total_bytes,
            truncated,
            ..GetTaskOutputResponse::default()
        }),
        Some(Err(err)) => Err(HandlerError::new(format!(
            "get_task_output: the output of {task_id} cannot be read: {err}"
        ))),
        None => Err(HandlerError::new(
            "get_task_output: no shell task with that task_id in this session",
        )),
    }
}

/// `rewind_files`.
pub(crate) fn rewind_files(session: &Session, message: &str, dry_run: bool) -> RewindFilesResponse {
    session.checkpoints.rewind(message, dry_run)
}

/// `seed_read_state`: the host says the model has seen the file as it was at `mtime` (in
/// milliseconds): it counts as read if it has not changed since, so that an edit may follow
/// without a `Read`. A file changed since stays unread (an edit is refused until it is read).
pub(crate) fn seed_read_state(
    session: &Session,
    request: &SeedReadStateRequest,
) -> Result<(), HandlerError> {
    let path = session.workspace.resolve(&request.path);
    let seen = request.mtime.as_f64().unwrap_or(0.0);
    let modified = std::fs::metadata(&path)
        .and_then(|m| m.modified())
        .map_err(|err| HandlerError::new(format!("{}: {err}", path.display())))?;
    let modified = modified
        .duration_since(UNIX_EPOCH)
        .unwrap_or(Duration::ZERO)
        .as_millis();
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let seen = seen.max(0.0).floor() as u128;
    if modified <= seen {
        session.workspace.files.read(&path, true);
    } else {
        tracing::debug!(path = %path.display(), "seed_read_state for a file changed since");
    }
    Ok(())
}

/// `apply_flag_settings`: the settings join the flags layer; a `model` among them is the
/// model of the next call.
pub(crate) fn apply_flag_settings(session: &Session, request: ApplyFlagSettingsRequest) {
    let mut state = session.state();
    if let Some(model) = request.settings.get("model") {
        state.model = match model.as_str() {
            Some(model) => resolve_alias(model),
            None => session.config.model.clone(),
        };
    }
    flag_settings::apply(&mut state.flag_settings, request.settings);
}

/// `get_settings`.
pub(crate) fn get_settings(session: &Session) -> GetSettingsResponse {
    let (applied, model) = {
        let state = session.state();
        (state.flag_settings.clone(), state.model.clone())
    };
    let layers = flag_settings::layers(&session.config, session.store.config_dir(), &applied);
    flag_settings::answer(layers, &model)
}

fn roots(session: &Session) -> Vec<std::path::PathBuf> {
    commands::roots(session.store.config_dir(), Path::new(&session.config.cwd))
}

/// `reload_skills`: the skills read again; the host is told when the commands changed.
pub(crate) fn reload_skills(session: &Session, peer: &Peer) -> ReloadSkillsResponse {
    let roots = roots(session);
    let commands = commands::all(&roots);
    let changed = {
        let mut state = session.state();
        let changed = state
            .commands
            .as_ref()
            .is_some_and(|before| *before != commands);
        state.commands = Some(commands.clone());
        changed
    };
    if changed {
        let frame = SystemMessage::CommandsChanged(CommandsChanged {
            commands,
            session_id: peer.session_id().to_owned(),
            uuid: new_id(),
            ..CommandsChanged::default()
        });
        if let Err(err) = peer.emit(&Message::System(Box::new(frame))) {
            tracing::debug!(%err, "a frame the host will not see");
        }
    }
    ReloadSkillsResponse {
        skills: commands::skills(&roots),
        ..ReloadSkillsResponse::default()
    }
}

/// `reload_plugins`: commands (skills among them), agents and MCP servers read again (this
/// agent has no plugins).
pub(crate) fn reload_plugins(session: &Session) -> ReloadPluginsResponse {
    let commands = commands::all(&roots(session));
    let mut state = session.state();
    state.commands = Some(commands.clone());
    let mut agents = crate::agents::Catalog::built_in();
    agents.add_files(session.store.config_dir());
    agents.add_files(&session.config.cwd.join(".claude"));
    for definitions in &session.config.agents {
        agents.add_json(definitions);
    }
    // The agents the host gave in `initialize` stay.
    for spec in state.agents.sorted() {
        if agents.get(&spec.name).is_none() {
            agents.add(
                &spec.name,
                &twinwire_protocol::control::AgentDefinition {
                    description: spec.description.clone(),
                    prompt: spec.prompt.clone(),
                    tools: spec.tools.clone(),
                    model: spec.model.clone(),
                    ..Default::default()
                },
            );
        }
    }
    state.agents = agents;
    ReloadPluginsResponse {
        commands,
        agents: state.agents.infos(),
        mcp_servers: state.mcp_status.clone(),
        ..ReloadPluginsResponse::default()
    }
}

/// `reload_output_styles`: the styles as the files now give them (the session's own stays
/// the one it started with).
pub(crate) fn reload_output_styles(session: &Session) -> ReloadOutputStylesResponse {
    let styles =
        crate::output_styles::available(&session.config.cwd, Some(session.store.config_dir()));
    ReloadOutputStylesResponse {
        available_output_styles: styles.into_iter().map(|style| style.name).collect(),
        ..ReloadOutputStylesResponse::default()
    }
}

/// `stop_task`: a background job of Bash (the host is told it stopped), else a subagent. A
/// task not known is answered as Claude Code answers it: done.
pub(crate) fn stop_task(session: &Session, id: &str) {
    if session.workspace.jobs.stop(id).is_err() {
        session.tasks.stop(id);
    }
}

/// `cancel_async_message`: a queued prompt withdrawn before a turn takes it (the host is told
/// with `command_lifecycle`).
pub(crate) fn cancel_async_message(peer: &Peer, uuid: &str) -> CancelAsyncMessageResponse {
    let cancelled = peer.withdraw_queued(uuid);
    if cancelled {
        let frame = CommandLifecycle {
            command_uuid: uuid.to_owned(),
            state: "cancelled".into(),
            uuid: new_id(),
            session_id: peer.session_id().to_owned(),
            ..CommandLifecycle::default()
        };
        if let Err(err) = peer.emit(&Message::CommandLifecycle(Box::new(frame))) {
            tracing::debug!(%err, "a frame the host will not see");
        }
    }
    CancelAsyncMessageResponse {
        cancelled: Some(cancelled),
        message_uuid: Some(uuid.to_owned()),
        ..CancelAsyncMessageResponse::default()
    }
}
