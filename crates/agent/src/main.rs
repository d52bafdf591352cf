//! `ccwire-agent`: the agent on this process's stdin and stdout, started with Claude Code's
//! command line.

fn main() {}
