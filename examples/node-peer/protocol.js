// The AGH Network v0 rules this peer needs as a receiver: the checks an
// inbound envelope goes through, in the Envelope page's validation order,
// the work lifecycle's transition table, and the three derived values
// (route token, direct room id, capability digest). No I/O here; peer.js
// and initiator.js do the talking.

import { createHash } from 'node:crypto';

export const PROTOCOL = 'agh-network/v0';
export const REPLAY_AGE_SECONDS = 300;

const PEER_ID = /^[a-z0-9][a-z0-9._-]{0,127}$/;
const CHANNEL = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const WORK_ID = /^work_[a-zA-Z0-9_-]{1,64}$/;
const DIRECT_ID = /^direct_[a-f0-9]{32}$/;
// A workspace id is one NATS subject token.
const WORKSPACE_UNSAFE = /[.*>\s\u0000-\u001f\u007f]/;

const KINDS = ['greet', 'whois', 'say', 'capability', 'receipt', 'trace'];
const CONVERSATION_KINDS = ['say', 'capability', 'receipt', 'trace'];
const RECEIPT_STATUSES = ['accepted', 'rejected', 'duplicate', 'expired', 'unsupported', 'canceled'];
const NEEDS_REASON = ['rejected', 'duplicate', 'expired', 'unsupported'];
export const TRACE_STATES = ['submitted', 'working', 'needs_input', 'completed', 'failed', 'canceled'];
export const TERMINAL_STATES = ['completed', 'failed', 'canceled'];
// The states a target may report next from each open state (Work
// Lifecycle); nothing follows a terminal state, and submitted is where
// work starts, never a state it returns to.
const NEXT_STATES = {
  submitted: ['working', 'failed', 'canceled'],
  working: ['working', 'needs_input', 'completed', 'failed', 'canceled'],
  needs_input: ['needs_input', 'working', 'completed', 'failed', 'canceled'],
};
const CARD_ARRAYS = ['profiles_supported', 'capabilities', 'artifacts_supported', 'trust_modes_supported'];
// The only top-level members the envelope schema defines.
const MEMBERS = new Set([
  'protocol', 'id', 'workspace_id', 'kind', 'channel', 'surface', 'thread_id', 'direct_id', 'from', 'to',
  'work_id', 'reply_to', 'trace_id', 'causation_id', 'ts', 'expires_at', 'body', 'proof', 'ext',
]);
// A refusal receipt is built from these members; when one of them is
// broken there is nothing sound to answer with, so the refusal is silent.
const REPLY_MEMBERS = new Set([
  '', 'id', 'kind', 'from', 'to', 'workspace_id', 'channel', 'work_id', 'surface', 'thread_id', 'direct_id',
]);

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isString = (v) => typeof v === 'string';
const nonBlank = (v) => isString(v) && v.trim() !== '';
const isStringArray = (v) => Array.isArray(v) && v.every(isString);
const present = (env, key) => env[key] !== undefined && env[key] !== null;
// A JavaScript number is exact only up to 2^53: a larger "integer" (1e30)
// is no time a peer can compare.
const unixSeconds = (v) => Number.isSafeInteger(v) && v >= 0;

const sha256 = (data) => createHash('sha256').update(data).digest('hex');

// routeToken names a peer's own NATS subject: the first 32 hex digits of
// SHA-256 over its Peer ID.
export function routeToken(peerId) {
  return sha256(Buffer.from(peerId, 'utf8')).slice(0, 32);
}

// directId is the one room two peers share in a workspace channel.
export function directId(workspaceId, channel, a, b) {
  const [lo, hi] = [Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')].sort(Buffer.compare);
  const sep = Buffer.from([0]);
  const input = Buffer.concat([
    Buffer.from('agh-network/direct-room/v0', 'utf8'), sep,
    Buffer.from(workspaceId, 'utf8'), sep, Buffer.from(channel, 'utf8'), sep, lo, sep, hi,
  ]);
  return 'direct_' + sha256(input).slice(0, 32);
}

// capabilityDigest hashes the structured capability document: its known
// members in a fixed order, strings trimmed, empty values left out, and
// the requirements sorted. It throws on a blank or repeated requirement.
export function capabilityDigest(cap) {
  const doc = {};
  for (const key of ['id', 'summary', 'outcome']) doc[key] = String(cap[key] ?? '').trim();
  const version = String(cap.version ?? '').trim();
  if (version !== '') doc.version = version;
  for (const key of ['context_needed', 'artifacts_expected', 'execution_outline', 'constraints', 'examples']) {
    const list = (cap[key] ?? []).map((s) => s.trim()).filter((s) => s !== '');
    if (list.length > 0) doc[key] = list;
  }
  const requirements = (cap.requirements ?? []).map((s) => s.trim());
  if (requirements.some((s) => s === '') || new Set(requirements).size !== requirements.length) {
    throw new Error('capability requirements must be non-empty and unique');
  }
  if (requirements.length > 0) {
    doc.requirements = requirements.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  }
  // The digest is defined over Go's encoding/json bytes, which escape
  // these characters where JSON.stringify writes them as they are.
  const json = JSON.stringify(doc).replace(/[<>&\u2028\u2029]/g,
    (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
  return 'sha256:' + sha256(Buffer.from(json, 'utf8'));
}

// canTransition reports whether work in state may move to next: the
// lifecycle's transition table, used both to refuse a control script that
// would break it and to judge the traces a target sends back.
export function canTransition(state, next) {
  return (NEXT_STATES[state] ?? []).includes(next);
}

// parse turns a NATS payload into an envelope object, or null when the
// bytes are not one UTF-8 JSON object (such input is dropped unanswered).
const utf8 = new TextDecoder('utf-8', { fatal: true });
export function parse(bytes) {
  try {
    const value = JSON.parse(utf8.decode(bytes));
    return isObject(value) ? value : null;
  } catch {
    return null;
  }
}

// check judges a parsed envelope as a receiver, at time now (Unix
// seconds). It returns null when the envelope is fine, else
// { reason, sound }: the receipt reason_code of the first problem in
// validation order, and whether the members a refusal receipt is built
// from are sound.
export function check(env, now) {
  const problems = [];
  const bad = (member, reason = 'malformed') => problems.push({ member, reason });

  // 2. Envelope fields.
  for (const key of ['protocol', 'id', 'workspace_id', 'kind', 'channel', 'from', 'ts', 'body']) {
    if (env[key] === undefined) bad(key);
  }
  for (const key of Object.keys(env)) if (!MEMBERS.has(key)) bad(key);
  // A protocol string we do not speak is an unsupported profile; a value
  // of another type names no profile at all: malformed.
  if (env.protocol !== undefined && env.protocol !== PROTOCOL) bad('protocol', isString(env.protocol) ? 'unsupported_profile' : 'malformed');
  if (env.id !== undefined && !nonBlank(env.id)) bad('id');
  if (env.workspace_id !== undefined && (!nonBlank(env.workspace_id) || WORKSPACE_UNSAFE.test(env.workspace_id))) bad('workspace_id');
  if (env.kind === 'direct') bad('kind'); // direct is a surface, not a kind
  else if (env.kind !== undefined && !KINDS.includes(env.kind)) bad('kind', isString(env.kind) ? 'unsupported_kind' : 'malformed');
  if (env.channel !== undefined && !(isString(env.channel) && CHANNEL.test(env.channel))) bad('channel');
  if (env.from !== undefined && !(isString(env.from) && PEER_ID.test(env.from))) bad('from');
  if (present(env, 'to') && !(isString(env.to) && PEER_ID.test(env.to))) bad('to');
  if (env.ts !== undefined && !unixSeconds(env.ts)) bad('ts');
  if (env.expires_at !== undefined && !unixSeconds(env.expires_at)) bad('expires_at');
  for (const key of ['reply_to', 'trace_id', 'causation_id']) {
    if (env[key] !== undefined && !nonBlank(env[key])) bad(key);
  }
  if (env.body !== undefined && !isObject(env.body)) bad('body');
  if (present(env, 'proof') && !isObject(env.proof)) bad('proof');
  if (env.ext !== undefined && !isObject(env.ext)) bad('ext');

  // 3. Freshness: an expiry in the past, or without one, a stale ts.
  if (unixSeconds(env.expires_at) ? env.expires_at <= now
    : env.expires_at === undefined && unixSeconds(env.ts) && env.ts < now - REPLAY_AGE_SECONDS) {
    bad('expires_at', 'expired');
  }

  // 4. Conversation surface, container and work fields for the kind.
  checkSurface(env, bad);

  // 5. The body of the kind.
  if (isObject(env.body)) checkBody(env, env.body, bad);

  if (problems.length === 0) return null;
  return {
    reason: problems[0].reason,
    sound: !problems.some((p) => REPLY_MEMBERS.has(p.member)),
  };
}

function checkSurface(env, bad) {
  const { surface } = env;
  if (present(env, 'surface') && surface !== 'thread' && surface !== 'direct') bad('surface');
  if (env.kind === 'greet' || env.kind === 'whois') {
    for (const key of ['surface', 'thread_id', 'direct_id', 'work_id']) if (present(env, key)) bad(key);
    return;
  }
  if (CONVERSATION_KINDS.includes(env.kind) && !present(env, 'surface')) bad('surface');
  if (present(env, 'thread_id') && present(env, 'direct_id')) bad('thread_id');
  if (present(env, 'thread_id') ? !nonBlank(env.thread_id) || surface !== 'thread' : surface === 'thread') bad('thread_id');
  if (present(env, 'direct_id')) {
    if (surface !== 'direct' || !isString(env.direct_id) || !DIRECT_ID.test(env.direct_id)) bad('direct_id');
    else if (isString(env.to) && isString(env.from) && isString(env.workspace_id) && isString(env.channel)
      && (env.to === env.from || env.direct_id !== directId(env.workspace_id, env.channel, env.from, env.to))) {
      bad('direct_id'); // not the room these two peers share
    }
  } else if (surface === 'direct') {
    bad('direct_id');
  }
  if (present(env, 'work_id') && !(isString(env.work_id) && WORK_ID.test(env.work_id))) bad('work_id');
  if ((env.kind === 'receipt' || env.kind === 'trace') && !present(env, 'work_id')) bad('work_id');
}

function checkBody(env, body, bad) {
  const wrong = (reason = 'malformed') => bad('body', reason);
  switch (env.kind) {
    case 'greet':
      if (present(env, 'to')) bad('to'); // a greet is a broadcast
      if (!validCard(body.peer_card, env.from)) wrong();
      if (body.summary !== undefined && !isString(body.summary)) wrong();
      break;
    case 'whois':
      if (body.type === 'request') {
        if (body.peer_card !== undefined) wrong();
      } else if (body.type === 'response') {
        if (!validCard(body.peer_card, env.from)) wrong();
        if (env.reply_to === undefined) bad('reply_to');
      } else {
        wrong();
      }
      if (body.query !== undefined && !isString(body.query)) wrong();
      break;
    case 'say':
      if (!nonBlank(body.text)) wrong();
      if (body.intent !== undefined && !isString(body.intent)) wrong();
      if (body.artifacts !== undefined && !Array.isArray(body.artifacts)) wrong();
      break;
    case 'capability':
      checkCapability(body.capability, wrong);
      break;
    case 'receipt':
      if (!nonBlank(body.for_id)) wrong();
      if (!RECEIPT_STATUSES.includes(body.status)) wrong();
      if (body.reason_code !== undefined ? body.status === 'accepted' || !nonBlank(body.reason_code)
        : NEEDS_REASON.includes(body.status)) wrong();
      if (body.detail !== undefined && !isString(body.detail)) wrong();
      break;
    case 'trace':
      if (!TRACE_STATES.includes(body.state)) wrong();
      if (body.message !== undefined && !isString(body.message)) wrong();
      if (body.result !== undefined && !isObject(body.result)) wrong();
      if (body.artifact_refs !== undefined && !Array.isArray(body.artifact_refs)) wrong();
      break;
  }
}

function validCard(card, from) {
  return isObject(card)
    && isString(card.peer_id) && PEER_ID.test(card.peer_id) && card.peer_id === from
    && CARD_ARRAYS.every((key) => isStringArray(card[key]))
    && (card.display_name === undefined || isString(card.display_name))
    && (card.ext === undefined || isObject(card.ext));
}

function checkCapability(cap, wrong) {
  if (!isObject(cap)) return wrong();
  if (!['id', 'summary', 'outcome', 'digest'].every((key) => nonBlank(cap[key]))) return wrong();
  if (cap.version !== undefined && !isString(cap.version)) return wrong();
  const lists = ['context_needed', 'artifacts_expected', 'execution_outline', 'constraints', 'examples', 'requirements'];
  if (!lists.every((key) => cap[key] === undefined || isStringArray(cap[key]))) return wrong();
  let digest;
  try {
    digest = capabilityDigest(cap);
  } catch {
    return wrong(); // a blank or repeated requirement
  }
  if (cap.digest !== digest) wrong('verification_failed');
}

// answerable: a refusal gets a receipt only for a directed say, capability
// or trace (or a cancel) that names its work and container, so that two
// peers never bounce receipts at each other.
export function answerable(env) {
  const kind = env.kind;
  const cancel = kind === 'receipt' && isObject(env.body) && env.body.status === 'canceled';
  return (['say', 'capability', 'trace'].includes(kind) || cancel)
    && ['id', 'from', 'to', 'work_id'].every((key) => nonBlank(env[key]))
    && containerOf(env) !== null;
}

// containerOf is the conversation container an envelope sits in.
export function containerOf(env) {
  if (env.surface === 'thread' && nonBlank(env.thread_id)) return { surface: 'thread', thread_id: env.thread_id };
  if (env.surface === 'direct' && nonBlank(env.direct_id)) return { surface: 'direct', direct_id: env.direct_id };
  return null;
}

export function sameContainer(a, b) {
  return a.surface === b.surface && a.thread_id === b.thread_id && a.direct_id === b.direct_id;
}
