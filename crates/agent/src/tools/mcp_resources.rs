//! `ListMcpResourcesTool` and `ReadMcpResourceTool`: the resources of the session's external
//! MCP servers, listed and read as Claude Code gives them (JSON with Claude Code's keys;
//! resources meant for the host's own views, `ui://`, left out of the list). They are offered
//! when the session has MCP servers.

use std::sync::Arc;

use futures::future::BoxFuture;
use rmcp::model::ReadResourceRequestParams;
use serde_json::{json, Value};

use super::{schema, Tool, ToolContext, ToolOutput};

/// A connected external server, as rmcp's client speaks to it.
pub type McpClient = rmcp::Peer<rmcp::RoleClient>;

/// The session's servers by name, with their clients when they connected.
pub type Servers = Arc<Vec<(String, Option<McpClient>)>>;

/// The names of both tools.
pub const NAMES: [&str; 2] = ["ListMcpResourcesTool", "ReadMcpResourceTool"];

/// Both tools, over `servers`.
pub fn tools(servers: Servers) -> Vec<Arc<dyn Tool>> {
    vec![
        Arc::new(ListMcpResources {
            servers: Arc::clone(&servers),
        }),
        Arc::new(ReadMcpResource { servers }),
    ]
}

/// Claude Code's words for a server the session does not have.
fn unknown_server(name: &str, servers: &Servers) -> ToolOutput {
    let names: Vec<&str> = servers.iter().map(|(n, _)| n.as_str()).collect();
    ToolOutput::failure(format!(
        "Server \"{name}\" not found. Available servers: {}",
        names.join(", ")
    ))
}

/// A JSON string with the keys in the given order (the result's map would sort them).
fn ordered(fields: &[(&str, Option<&str>)]) -> String {
    let parts: Vec<String> = fields
        .iter()
        .filter_map(|(key, value)| value.map(|v| format!("\"{key}\":{}", json!(v))))
        .collect();
    format!("{{{}}}", parts.join(","))
}

/// `ListMcpResourcesTool`.
pub struct ListMcpResources {
    servers: Servers,
}

impl Tool for ListMcpResources {
    fn name(&self) -> &str {
        "ListMcpResourcesTool"
    }

    fn description(&self) -> String {
        "Lists the resources the connected MCP servers offer (each with its server, URI, name \
         and description), or those of one server when `server` names it."
            .to_owned()
    }

    fn input_schema(&self) -> Value {
        schema::list_mcp_resources().json()
    }

    fn check_input(&self, input: &Value) -> Result<Value, String> {
        schema::list_mcp_resources().check("ListMcpResourcesTool", input)
    }

    fn read_only(&self) -> bool {
        true
    }

    fn call(&self, input: Value, _cx: ToolContext) -> BoxFuture<'static, ToolOutput> {
        let servers = Arc::clone(&self.servers);
        Box::pin(async move {
            let wanted = input["server"].as_str();
            if let Some(name) = wanted {
                if !servers.iter().any(|(n, _)| n == name) {
                    return unknown_server(name, &servers);
                }
            }
            let mut entries = Vec::new();
            let mut listed = Vec::new();
            for (name, client) in servers.iter() {
                if wanted.is_some_and(|w| w != name) {
                    continue;
                }
                let Some(client) = client else { continue };
                let Ok(resources) = client.list_all_resources().await else {
                    continue;
                };
                for resource in resources {
                    if resource.uri.starts_with("ui://") {
                        continue;
                    }
                    entries.push(ordered(&[
                        ("name", Some(&resource.name)),
                        ("uri", Some(&resource.uri)),
                        ("description", resource.description.as_deref()),
                        ("mimeType", resource.mime_type.as_deref()),
                        ("server", Some(name)),
                    ]));
                    listed.push(json!({"name": resource.name, "uri": resource.uri,
                                       "server": name}));
                }
            }
            if entries.is_empty() {
                return ToolOutput::success(
                    "No resources found. MCP servers may still provide tools even if they have \
                     no resources.",
                    json!([]),
                );
            }
            ToolOutput::success(format!("[{}]", entries.join(",")), Value::Array(listed))
        })
    }
}

/// `ReadMcpResourceTool`.
pub struct ReadMcpResource {
    servers: Servers,
}

impl Tool for ReadMcpResource {
    fn name(&self) -> &str {
        "ReadMcpResourceTool"
    }

    fn description(&self) -> String {
        "Reads one resource of a connected MCP server, named by its server and URI (as \
         ListMcpResourcesTool gives them)."
            .to_owned()
    }

    fn input_schema(&self) -> Value {
        schema::read_mcp_resource().json()
    }

    fn check_input(&self, input: &Value) -> Result<Value, String> {
        schema::read_mcp_resource().check("ReadMcpResourceTool", input)
    }

    fn read_only(&self) -> bool {
        true
    }

    fn call(&self, input: Value, _cx: ToolContext) -> BoxFuture<'static, ToolOutput> {
        let servers = Arc::clone(&self.servers);
        Box::pin(async move {
            let name = input["server"].as_str().unwrap_or_default();
            let uri = input["uri"].as_str().unwrap_or_default().to_owned();
            let Some((_, client)) = servers.iter().find(|(n, _)| n == name) else {
                return unknown_server(name, &servers);
            };
            let Some(client) = client else {
                return ToolOutput::failure(format!("Server \"{name}\" is not connected"));
            };
            let read = match client
                .read_resource(ReadResourceRequestParams::new(uri.clone()))
                .await
            {
                Ok(read) => read,
                Err(_) => {
                    return ToolOutput::success(
                        format!(
                            "Resource not found: {uri} \u{2014} it may have been deleted or the \
                             URI is stale. Re-run ListMcpResourcesTool to refresh."
                        ),
                        json!({"contents": []}),
                    )
                }
            };
            let value = serde_json::to_value(&read).unwrap_or(Value::Null);
            let contents: Vec<String> = value["contents"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|item| {
                    ordered(&[
                        ("uri", item["uri"].as_str()),
                        ("mimeType", item["mimeType"].as_str()),
                        ("text", item["text"].as_str()),
                        ("blob", item["blob"].as_str()),
                    ])
                })
                .collect();
            ToolOutput::success(format!("{{\"contents\":[{}]}}", contents.join(",")), value)
        })
    }
}
