//! Jupyter notebooks: read as Claude Code shows them (each cell as `<cell id="…">source</cell
//! id="…">`, a cell that is not code naming its type, a code cell in a language other than
//! Python naming its language, each output after its cell, images as image blocks), and
//! `NotebookEdit`: a cell replaced, inserted or deleted, the notebook written back with its
//! keys in their order, indented by one space, as Claude Code writes it.

use std::path::Path;

use futures::future::BoxFuture;
use serde_json::{json, Value};
use twinwire_protocol::content::{ContentBlock, TextBlock, ToolResultContent};

use super::files::write_whole;
use super::ordered_json::Ordered;
use super::{schema, Tool, ToolContext, ToolOutput};

/// The largest notebook read.
const MAX_NOTEBOOK_BYTES: u64 = 10 * 1024 * 1024;

/// A notebook read for the model.
pub fn read(path: &Path, cx: &ToolContext) -> ToolOutput {
    let notebook = match load(path) {
        Ok(notebook) => notebook,
        Err(why) => return ToolOutput::failure(why),
    };
    let value = notebook.to_value();
    let language = value["metadata"]["language_info"]["name"]
        .as_str()
        .unwrap_or("python")
        .to_owned();
    let mut blocks: Vec<ContentBlock> = Vec::new();
    let cells = value["cells"].as_array().cloned().unwrap_or_default();
    for (index, cell) in cells.iter().enumerate() {
        for block in cell_blocks(cell, index, &language) {
            push_merged(&mut blocks, block);
        }
    }
    cx.workspace.files.read(path, true);
    let content = match blocks.as_slice() {
        [ContentBlock::Text(text)] => ToolResultContent::Text(text.text.clone()),
        _ => ToolResultContent::Blocks(blocks),
    };
    ToolOutput {
        follow_up: Vec::new(),
        notes: Vec::new(),
        content,
        is_error: false,
        result: Some(json!({"type": "notebook",
                            "file": {"filePath": path.display().to_string(), "cells": cells}})),
    }
}

/// Adds a block, joining text onto a text block before it (with a line break), as Claude
/// Code joins a cell and its outputs.
fn push_merged(blocks: &mut Vec<ContentBlock>, block: ContentBlock) {
    if let (Some(ContentBlock::Text(last)), ContentBlock::Text(next)) = (blocks.last_mut(), &block)
    {
        last.text.push('\n');
        last.text.push_str(&next.text);
        return;
    }
    blocks.push(block);
}

fn text(text: String) -> ContentBlock {
    ContentBlock::Text(TextBlock {
        text,
        ..Default::default()
    })
}

/// A cell's source, whether a string or a list of lines.
fn joined(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts.iter().filter_map(Value::as_str).collect(),
        _ => String::new(),
    }
}

fn cell_blocks(cell: &Value, index: usize, language: &str) -> Vec<ContentBlock> {
    let id = cell["id"]
        .as_str()
        .map_or_else(|| format!("cell-{index}"), str::to_owned);
    let kind = cell["cell_type"].as_str().unwrap_or("code");
    let mut tags = String::new();
    if kind != "code" {
        tags.push_str(&format!("<cell_type>{kind}</cell_type>"));
    } else if language != "python" {
        tags.push_str(&format!("<language>{language}</language>"));
    }
    let source = joined(&cell["source"]);
    let mut blocks = vec![text(format!(
        "<cell id=\"{id}\">{tags}{source}</cell id=\"{id}\">"
    ))];
    if kind != "code" {
        return blocks;
    }
    for output in cell["outputs"].as_array().into_iter().flatten() {
        let (body, image) = match output["output_type"].as_str() {
            Some("stream") => (joined(&output["text"]), None),
            Some("execute_result" | "display_data") => (
                joined(&output["data"]["text/plain"]),
                ["image/png", "image/jpeg"].iter().find_map(|kind| {
                    output["data"][*kind].as_str().map(|data| {
                        (
                            kind.to_string(),
                            data.split_whitespace().collect::<String>(),
                        )
                    })
                }),
            ),
            Some("error") => {
                let mut lines = vec![format!(
                    "{}: {}",
                    output["ename"].as_str().unwrap_or_default(),
                    output["evalue"].as_str().unwrap_or_default()
                )];
                lines.extend(
                    output["traceback"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(Value::as_str)
                        .map(str::to_owned),
                );
                (lines.join("\n"), None)
            }
            _ => {
                blocks.push(text(
                    "\nOutputs of an unknown type are not shown.".to_owned(),
                ));
                continue;
            }
        };
        if !body.is_empty() {
            blocks.push(text(format!("\n{}", strip_ansi(&body))));
        }
        if let Some((media_type, data)) = image {
            blocks.extend(super::block(json!({"type": "image", "source": {
                "type": "base64", "media_type": media_type, "data": data}})));
        }
    }
    blocks
}

/// Terminal colour codes taken out of outputs.
fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            chars.next();
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
            continue;
        }
        out.push(c);
    }
    out
}

/// A notebook from disk, keys in order.
fn load(path: &Path) -> Result<Ordered, String> {
    let meta = std::fs::metadata(path).map_err(|err| err.to_string())?;
    if meta.len() > MAX_NOTEBOOK_BYTES {
        return Err(format!(
            "Notebook file exceeds the maximum size this tool can read ({}).",
            super::files::human_size(MAX_NOTEBOOK_BYTES)
        ));
    }
    let text = std::fs::read_to_string(path).map_err(|err| err.to_string())?;
    let notebook = Ordered::parse(&text).map_err(|err| {
        format!(
            "Notebook file is not valid JSON (it may be truncated, corrupted, or still being \
             written): {err}"
        )
    })?;
    if !matches!(notebook.get("cells"), Some(Ordered::Array(_))) {
        return Err(
            "Notebook file is not a valid Jupyter notebook (top-level \"cells\" must be \
                    an array of cell objects, each with a string or string-array \"source\")."
                .to_owned(),
        );
    }
    Ok(notebook)
}

/// The `NotebookEdit` tool.
pub struct NotebookEdit;

impl Tool for NotebookEdit {
    fn name(&self) -> &str {
        "NotebookEdit"
    }

    fn description(&self) -> String {
        "Changes one cell of a Jupyter notebook (.ipynb).\n\n- notebook_path is the \
         notebook's absolute path; read the notebook first, so that you know its cells and \
         their ids.\n- edit_mode \"replace\" (the default) puts new_source in the cell named by \
         cell_id; a code cell's outputs and execution count are cleared.\n- \"insert\" adds a \
         new cell after the one named by cell_id, or at the top without one; cell_type (code \
         or markdown) is then required.\n- \"delete\" removes the cell named by cell_id.\n- \
         cell_type on a replace changes the cell's type.\nThe notebook is written back with \
         its other cells and metadata as they were."
            .to_owned()
    }

    fn input_schema(&self) -> Value {
        schema::notebook_edit().json()
    }

    fn check_input(&self, input: &Value) -> Result<Value, String> {
        schema::notebook_edit().check("NotebookEdit", input)
    }

    fn validate(&self, input: &Value, cx: &ToolContext) -> Option<ToolOutput> {
        refusal(input, cx)
    }

    fn call(&self, input: Value, cx: ToolContext) -> BoxFuture<'static, ToolOutput> {
        Box::pin(async move {
            tokio::task::spawn_blocking(move || edit(&input, &cx))
                .await
                .unwrap_or_else(|err| ToolOutput::failure(format!("NotebookEdit failed: {err}")))
        })
    }
}

/// Why the edit cannot be made, in Claude Code's words.
fn refusal(input: &Value, cx: &ToolContext) -> Option<ToolOutput> {
    let path = cx
        .workspace
        .resolve(input["notebook_path"].as_str().unwrap_or_default());
    if path.extension().and_then(|e| e.to_str()) != Some("ipynb") {
        return Some(ToolOutput::error(
            "File must be a Jupyter notebook (.ipynb file). For editing other file types, use \
             the FileEdit tool.",
        ));
    }
    let mode = input["edit_mode"].as_str().unwrap_or("replace");
    if mode == "insert" && input["cell_type"].as_str().is_none() {
        return Some(ToolOutput::error(
            "Cell type is required when using edit_mode=insert.",
        ));
    }
    if !cx.workspace.files.known(&path) {
        return Some(ToolOutput::error(
            "File has not been read yet. Read it first before writing to it.",
        ));
    }
    if cx.workspace.files.changed(&path) {
        return Some(ToolOutput::error(
            "File has been modified since read, either by the user or by a linter. Read it \
             again before attempting to write it.",
        ));
    }
    let notebook = match load(&path) {
        Ok(notebook) => notebook,
        Err(why) => return Some(ToolOutput::error(why)),
    };
    if let (Some(id), Some(Ordered::Array(cells))) =
        (input["cell_id"].as_str(), notebook.get("cells"))
    {
        if find_cell(cells, id).is_none() {
            return Some(ToolOutput::error(format!(
                "Cell with ID \"{id}\" not found in notebook."
            )));
        }
    }
    None
}

fn edit(input: &Value, cx: &ToolContext) -> ToolOutput {
    if let Some(refused) = refusal(input, cx) {
        return refused;
    }
    let path = cx
        .workspace
        .resolve(input["notebook_path"].as_str().unwrap_or_default());
    let mode = input["edit_mode"].as_str().unwrap_or("replace");
    let mut notebook = match load(&path) {
        Ok(notebook) => notebook,
        Err(why) => return ToolOutput::error(why),
    };
    let source = input["new_source"].as_str().unwrap_or_default().to_owned();
    let cell_id = input["cell_id"].as_str();
    let Some(Ordered::Array(cells)) = notebook.get_mut("cells") else {
        return ToolOutput::error("The notebook has no cells.");
    };
    let position = match cell_id {
        None => None,
        Some(id) => match find_cell(cells, id) {
            Some(at) => Some(at),
            None => {
                return ToolOutput::error(format!("Cell with ID \"{id}\" not found in notebook."))
            }
        },
    };
    let text = match mode {
        "insert" => {
            let kind = input["cell_type"].as_str().unwrap_or("code");
            let id = new_cell_id();
            let mut cell = vec![
                ("cell_type".to_owned(), Ordered::plain(kind)),
                ("id".to_owned(), Ordered::plain(id.clone())),
                ("source".to_owned(), Ordered::plain(source.clone())),
                ("metadata".to_owned(), Ordered::Object(Vec::new())),
            ];
            if kind == "code" {
                cell.push(("execution_count".to_owned(), Ordered::plain(Value::Null)));
                cell.push(("outputs".to_owned(), Ordered::Array(Vec::new())));
            }
            let at = position.map_or(0, |at| at + 1);
            cells.insert(at, Ordered::Object(cell));
            format!("Inserted cell {id} with {source}")
        }
        "delete" => {
            let Some(at) = position else {
                return ToolOutput::error("Cell ID must be specified when deleting a cell.");
            };
            cells.remove(at);
            format!("Deleted cell {}", cell_id.unwrap_or_default())
        }
        _ => {
            let Some(at) = position else {
                return ToolOutput::error(
                    "Cell ID must be specified when not inserting a new cell.",
                );
            };
            let cell = &mut cells[at];
            cell.set("source", Ordered::plain(source.clone()));
            if let Some(kind) = input["cell_type"].as_str() {
                cell.set("cell_type", Ordered::plain(kind));
            }
            if cell.get("cell_type").map(Ordered::to_value) == Some(json!("code")) {
                cell.set("execution_count", Ordered::plain(Value::Null));
                cell.set("outputs", Ordered::Array(Vec::new()));
            }
            format!("Updated cell {} with {source}", cell_id.unwrap_or_default())
        }
    };
    let written = format!("{}\n", notebook.pretty());
    if let Err(why) = write_whole(&path, &written) {
        return ToolOutput::error(why);
    }
    cx.workspace.files.wrote(&path, &written, true);
    ToolOutput::success(
        text,
        json!({"new_source": source, "cell_id": cell_id, "edit_mode": mode,
               "notebook_path": path.display().to_string()}),
    )
}

/// The cell with this id, or, for `cell-N` or a bare number, the N-th.
fn find_cell(cells: &[Ordered], id: &str) -> Option<usize> {
    if let Some(at) = cells
        .iter()
        .position(|c| c.get("id").map(Ordered::to_value) == Some(json!(id)))
    {
        return Some(at);
    }
    let index: usize = id.strip_prefix("cell-").unwrap_or(id).parse().ok()?;
    (index < cells.len()).then_some(index)
}

/// Eight hexadecimal digits, as Claude Code names a new cell.
fn new_cell_id() -> String {
    uuid::Uuid::new_v4().simple().to_string()[..8].to_owned()
}
