// Shared cell runner for the Node client-library matrix (tests/it/clients/matrix.rs): the
// same plan on stdin and the same one-line JSON report on stdout as harness.py (read its
// docstring). A library script passes an adapter { library, version, elicitation, tools(token),
// call(token, name, args, ask), read(token, uri) -> [{text}|{bytes}], prompt(token, name, args) }.
import { createHash } from 'node:crypto';

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

async function cell(promise) {
  try {
    return await promise;
  } catch (error) {
    return { error: `${error?.name ?? 'Error'}: ${error?.message ?? String(error)}`, trace: String(error?.stack ?? '').slice(-2000) };
  }
}

function summarize(contents) {
  if (!Array.isArray(contents)) return contents;
  return contents.map((c) =>
    c.bytes ? { len: c.bytes.length, sha256: createHash('sha256').update(c.bytes).digest('hex') } : c,
  );
}

/** The person: records the question shown and answers yes only for `accept`. */
function asker(answer, shown) {
  return (message) => {
    shown.push(message);
    return answer === 'accept';
  };
}

export async function main(makeAdapter) {
  const plan = await readStdin();
  const adapter = await makeAdapter(plan.url);
  const shown = [];
  const report = { library: adapter.library, version: adapter.version, elicitation: adapter.elicitation };
  report.tools_full = await cell(adapter.tools(plan.full));
  report.tools_readonly = await cell(adapter.tools(plan.readonly));
  report.call = await cell(adapter.call(plan.full, plan.list_call.name, plan.list_call.arguments, asker('accept', shown)));
  report.json_resource = summarize(await cell(adapter.read(plan.readonly, plan.json_uri)));
  report.pdf = summarize(await cell(adapter.read(plan.readonly, plan.pdf_uri)));
  report.prompts = [];
  for (const p of plan.prompts) {
    const got = await cell(adapter.prompt(plan.full, p.name, p.arguments));
    report.prompts.push({ name: p.name, ...(Array.isArray(got) ? { texts: got } : got) });
  }
  const d = plan.destructive;
  report.destructive = [];
  for (const answer of adapter.elicitation ? ['decline', 'accept'] : ['accept']) {
    report.destructive.push({ answer, ...(await cell(adapter.call(plan.full, d.name, d.arguments, asker(answer, shown)))) });
  }
  report.elicitations = shown;
  await adapter.close?.();
  process.stdout.write(JSON.stringify(report) + '\n');
}

/** The text of a tool result's content blocks. */
export function textOf(result) {
  return (result.content ?? []).map((b) => b.text ?? '').join('\n');
}

/** Resource contents as the harness reports them. */
export function contentsOf(result) {
  return result.contents.map((c) => (c.blob !== undefined ? { bytes: Buffer.from(c.blob, 'base64') } : { text: c.text }));
}
