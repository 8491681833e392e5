// Runs api/web/static/witness.js under node (WebCrypto as in a browser) on the cases Python
// gives on stdin, and prints what it found, one answer per case.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [, , modulePath] = process.argv;
const w = await import(pathToFileURL(modulePath).href);
const input = JSON.parse(readFileSync(0, "utf8"));
const hexb = (h) => Uint8Array.from(Buffer.from(h, "hex"));

async function attempt(run) {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    return { ok: false, error: error.message };
  }
}

function fakeApi(answers) {
  const answer = (path) => {
    if (!(path in answers)) throw new w.WitnessFailure(`${path}: HTTP 404`, "");
    return answers[path];
  };
  return { text: async (path) => answer(path), json: async (path) => answer(path) };
}

const out = {};
for (const [name, c] of Object.entries(input)) {
  if (c.kind === "inclusion") {
    out[name] = await w.verifyInclusion(c.index, c.size, hexb(c.leaf), c.proof.map(hexb), hexb(c.root));
  } else if (c.kind === "consistency") {
    out[name] = await w.verifyConsistency(c.first, c.second, hexb(c.old), hexb(c.new), c.proof.map(hexb));
  } else if (c.kind === "open") {
    out[name] = await attempt(async () => {
      const opened = await w.openCheckpoint(c.note, await w.parseVkey(c.vkey));
      return [opened.origin, opened.size, Buffer.from(opened.root).toString("base64")];
    });
  } else if (c.kind === "page") {
    const store = new Map(Object.entries(c.storage || {}));
    const storage = { getItem: (k) => store.get(k) ?? null, setItem: (k, v) => store.set(k, v) };
    const found = await w.witnessPage(storage, fakeApi(c.answers), c.events || [], new Set());
    out[name] = { ...found, storage: Object.fromEntries(store) };
  }
}
process.stdout.write(JSON.stringify(out));
