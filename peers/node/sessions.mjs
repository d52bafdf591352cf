// The official TypeScript SDK's session functions, for the peers suite to compare with
// `twinwire sessions` on the same files. Prints one JSON value.
//
//   node sessions.mjs list [DIR]            listSessions({dir}) (all projects without DIR)
//   node sessions.mjs show ID               getSessionInfo, getSessionMessages, listSubagents
//                                           and getSubagentMessages of each subagent
//   node sessions.mjs rename ID TITLE | tag ID TAG|- | archive ID | unarchive ID
//                 | delete ID | fork ID [UP_TO]
//
// The SDK is imported from $TWINWIRE_PEERS_TS_SDK; the sessions are under $CLAUDE_CONFIG_DIR.
const sdk = await import(process.env.TWINWIRE_PEERS_TS_SDK);
const [op, id, arg] = process.argv.slice(2);
let out;
switch (op) {
  case 'list':
    out = await sdk.listSessions(id ? { dir: id } : {});
    break;
  case 'show': {
    const subagents = await sdk.listSubagents(id);
    const agents = {};
    for (const agent of subagents) agents[agent] = await sdk.getSubagentMessages(id, agent);
    out = {
      info: (await sdk.getSessionInfo(id)) ?? null,
      messages: await sdk.getSessionMessages(id),
      system: await sdk.getSessionMessages(id, { includeSystemMessages: true }),
      paged: await sdk.getSessionMessages(id, { offset: 1, limit: 2 }),
      subagents,
      agents,
    };
    break;
  }
  case 'rename': out = await sdk.renameSession(id, arg); break;
  case 'tag': out = await sdk.tagSession(id, arg === '-' ? null : arg); break;
  case 'archive': out = await sdk.archiveSession(id); break;
  case 'unarchive': out = await sdk.unarchiveSession(id); break;
  case 'delete': out = await sdk.deleteSession(id); break;
  case 'fork': out = await sdk.forkSession(id, arg ? { upToMessageId: arg } : {}); break;
  default: throw new Error(`unknown op ${op}`);
}
console.log(JSON.stringify(out ?? null));
