//! `TaskStop`: stops a background job of Bash by its id (`shell_id`, its older name, too).

use futures::future::BoxFuture;
use serde_json::{json, Value};

use super::{schema, Tool, ToolContext, ToolOutput};

/// The `TaskStop` tool.
pub struct TaskStop;

impl Tool for TaskStop {
    fn name(&self) -> &str {
        "TaskStop"
    }

    fn description(&self) -> String {
        "Stops a background job.\n\n- task_id is the id Bash gave when it started the job \
         with run_in_background, or when it moved a slow command to the background.\n- The \
         job's processes are ended; what it wrote so far stays in its output file.\n- A job \
         you stop is not announced when it ends. Stop jobs you no longer need rather than \
         leaving them running."
            .to_owned()
    }

    fn input_schema(&self) -> Value {
        schema::task_stop().json()
    }

    fn check_input(&self, input: &Value) -> Result<Value, String> {
        schema::task_stop().check("TaskStop", input)
    }

    fn read_only(&self) -> bool {
        // It touches no file: Claude Code runs it without asking.
        true
    }

    fn validate(&self, input: &Value, cx: &ToolContext) -> Option<ToolOutput> {
        let Some(id) = input["task_id"]
            .as_str()
            .or_else(|| input["shell_id"].as_str())
        else {
            return Some(ToolOutput::error("Missing required parameter: task_id"));
        };
        let known = cx.workspace.jobs.running().iter().any(|job| job.id == id);
        (!known).then(|| ToolOutput::error(format!("No task found with ID: {id}")))
    }

    fn call(&self, input: Value, cx: ToolContext) -> BoxFuture<'static, ToolOutput> {
        Box::pin(async move {
            let Some(id) = input["task_id"]
                .as_str()
                .or_else(|| input["shell_id"].as_str())
            else {
                return ToolOutput::error("Missing required parameter: task_id");
            };
            match cx.workspace.jobs.stop(id) {
                Ok(job) => {
                    let message =
                        format!("Successfully stopped task: {} ({})", job.id, job.command);
                    // Claude Code's key order, which the map of the result would not keep.
                    let text = format!(
                        "{{\"message\":{},\"task_id\":{},\"task_type\":\"local_bash\",\"command\":{}}}",
                        json!(message),
                        json!(job.id),
                        json!(job.command)
                    );
                    let result = json!({"message": message, "task_id": job.id,
                                        "task_type": "local_bash", "command": job.command});
                    ToolOutput::success(text, result)
                }
                Err(why) => ToolOutput::error(why),
            }
        })
    }
}
