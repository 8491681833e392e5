// The page as a witness (issue 37, docs/witnesses.md): it keeps each shard's last checkpoint in
// this browser, checks every new one (its Ed25519 signature with WebCrypto, a consistency
// proof from the one kept) and the inclusion of every event it shows. Written from RFC 9162
// §2.1 and C2SP signed-note / tlog-checkpoint; it shares no code with the server.

const STATE_KEY = "senki.witness";
const enc = new TextEncoder();

export class WitnessFailure extends Error {
  constructor(message, evidence) {
    super(message);
    this.evidence = evidence;
  }
}

function bytes(b64) {
  return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
}

function hex(data) {
  return Array.from(data, (b) => b.toString(16).padStart(2, "0")).join("");
}

function fromHex(text) {
  return Uint8Array.from(text.match(/../g) || [], (h) => parseInt(h, 16));
}

function same(a, b) {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

async function sha256(...parts) {
  const joined = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    joined.set(part, at);
    at += part.length;
  }
  return new Uint8Array(await crypto.subtle.digest("SHA-256", joined));
}

export const leafHash = (leaf) => sha256(Uint8Array.of(0), leaf);
const nodeHash = (left, right) => sha256(Uint8Array.of(1), left, right);

/** RFC 9162 §2.1.3.2: does `proof` put `leaf` at `index` of a tree of `size` under `root`? */
export async function verifyInclusion(index, size, leaf, proof, root) {
  if (index < 0 || index >= size) return false;
  let fn = index;
  let sn = size - 1;
  let r = await leafHash(leaf);
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = await nodeHash(p, r);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else {
      r = await nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && same(r, root);
}

/** RFC 9162 §2.1.4.2: is the tree of `second` leaves an extension of that of `first`? */
export async function verifyConsistency(first, second, firstRoot, secondRoot, proof) {
  if (first < 0 || first > second) return false;
  if (first === 0) return proof.length === 0;
  if (first === second) return proof.length === 0 && same(firstRoot, secondRoot);
  if (proof.length === 0) return false;
  const path = (first & (first - 1)) === 0 ? [firstRoot, ...proof] : [...proof];
  let fn = first - 1;
  let sn = second - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr = path[0];
  let sr = path[0];
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = await nodeHash(c, fr);
      sr = await nodeHash(c, sr);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else {
      sr = await nodeHash(sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return same(fr, firstRoot) && same(sr, secondRoot) && sn === 0;
}

/** `<name>+<hex key ID>+<base64(0x01 ‖ key)>`, its key ID checked (C2SP signed-note). */
export async function parseVkey(text) {
  const [name, id, material] = [text.split("+")[0], text.split("+")[1], text.split("+").slice(2).join("+")];
  const raw = bytes(material || "");
  if (!name || raw.length !== 33 || raw[0] !== 1) throw new WitnessFailure(`not an Ed25519 vkey: ${text}`, text);
  const keyId = (await sha256(enc.encode(`${name}\n`), raw)).slice(0, 4);
  if (hex(keyId) !== id) throw new WitnessFailure(`the key ID of ${text} does not match its key`, text);
  const key = await crypto.subtle.importKey("raw", raw.slice(1), { name: "Ed25519" }, false, ["verify"]);
  return { name, keyId, key, text };
}

/** The checkpoint a note carries if `vkey` signed it (C2SP signed-note and tlog-checkpoint). */
export async function openCheckpoint(note, vkey) {
  const cut = note.lastIndexOf("\n\n");
  if (cut < 0 || !note.endsWith("\n")) throw new WitnessFailure("not a signed note", note);
  const text = note.slice(0, cut + 1);
  let verified = false;
  for (const line of note.slice(cut + 2, -1).split("\n")) {
    if (!line.startsWith("\u2014 ")) throw new WitnessFailure(`not a signature line: ${line}`, note);
    const [name, blob] = line.slice(2).split(" ");
    const sig = bytes(blob || "");
    if (name !== vkey.name || !same(sig.slice(0, 4), vkey.keyId)) continue; // an unknown key
    if (!(await crypto.subtle.verify({ name: "Ed25519" }, vkey.key, sig.slice(4), enc.encode(text)))) {
      throw new WitnessFailure(`the checkpoint's signature by ${vkey.text} does not verify: forged`, note);
    }
    verified = true;
  }
  if (!verified) throw new WitnessFailure(`no signature by ${vkey.text} (a forged checkpoint or another key)`, note);
  const [origin, size, root] = text.split("\n");
  if (!origin || !/^(0|[1-9][0-9]*)$/.test(size) || bytes(root).length !== 32) {
    throw new WitnessFailure("not a checkpoint: origin, tree size, root hash", note);
  }
  return { origin, size: Number(size), root: bytes(root) };
}

/** Check the shard's latest checkpoint against the kept one; the new one to keep. */
export async function witnessShard(shard, vkey, keptNote, api) {
  const note = await api.text(`/v1/log/${shard}/checkpoint`);
  const latest = await openCheckpoint(note, vkey);
  if (!keptNote) return { note, checkpoint: latest };
  const kept = await openCheckpoint(keptNote, vkey);
  const both = `--- kept ---\n${keptNote}--- served ---\n${note}`;
  if (latest.origin !== kept.origin) throw new WitnessFailure("the log's origin changed", both);
  if (latest.size < kept.size) {
    throw new WitnessFailure(`the tree shrank from ${kept.size} to ${latest.size} leaves: events were removed`, both);
  }
  const proof = await api.json(`/v1/log/${shard}/consistency?first=${kept.size}&second=${latest.size}`);
  const hashes = proof.hashes.map(bytes);
  if (!(await verifyConsistency(kept.size, latest.size, kept.root, latest.root, hashes))) {
    throw new WitnessFailure(
      `the log of ${latest.size} leaves is not an extension of the ${kept.size} this browser kept: it was rewritten`,
      `${both}--- proof ---\n${proof.hashes.join("\n")}\n`,
    );
  }
  return { note, checkpoint: latest };
}

/** Every event shown is in the checkpoint (its `log` leaf, by an inclusion proof). */
export async function witnessEvents(events, shardCheckpoints, api, proved = new Set()) {
  for (const event of events) {
    const log = event.log;
    const checkpoint = log && shardCheckpoints[log.shard];
    if (!checkpoint || proved.has(log.position) || log.leaf_index >= checkpoint.size) continue;
    const proof = await api.json(`/v1/log/${log.shard}/inclusion?position=${log.position}&size=${checkpoint.size}`);
    const ok = await verifyInclusion(log.leaf_index, checkpoint.size, fromHex(log.chain_hash), proof.hashes.map(bytes), checkpoint.root);
    if (!ok || proof.leaf_index !== log.leaf_index) {
      throw new WitnessFailure(
        `event at position ${log.position} (version ${event.version}) is not in the signed log as shown`,
        JSON.stringify({ event: log, proof }, null, 2),
      );
    }
    proved.add(log.position); // later checkpoints are proved consistent with this one
  }
}

/** One witness pass over every shard and the events shown; what the page says about it. */
export async function witnessPage(storage, api, events, proved) {
  const kept = JSON.parse(storage.getItem(STATE_KEY) || "null") || { checkpoints: {} };
  try {
    const keys = await api.json("/v1/log/key");
    kept.vkey = kept.vkey || keys.vkeys[keys.vkeys.length - 1]; // trusted on first use, then kept
    kept.since = kept.since || new Date().toISOString();
    const vkey = await parseVkey(kept.vkey);
    const current = {};
    for (let shard = 0; shard < keys.origins.length; shard += 1) {
      const seen = await witnessShard(shard, vkey, kept.checkpoints[shard], api);
      kept.checkpoints[shard] = seen.note;
      current[shard] = seen.checkpoint;
    }
    await witnessEvents(events, current, api, proved);
    storage.setItem(STATE_KEY, JSON.stringify(kept));
    return { ok: true, since: kept.since, vkey: kept.vkey };
  } catch (error) {
    if (!(error instanceof WitnessFailure)) throw error;
    return { ok: false, message: error.message, evidence: error.evidence, since: kept.since };
  }
}
