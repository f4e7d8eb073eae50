// aghcheck's test-only extension, aghcheck.control/v1
// (docs/control-extension.md), and its initiation orders
// (aghcheck.initiate/v1): reading a script a test peer puts on the work it
// sends, an order to open work, and an in-band request. No I/O here.
//
// A production peer has no use for any of this: it lets aghcheck script
// the lifecycle scenarios (ask for input, fail, stay open for a cancel)
// and make the peer initiate work so that its initiator half is judged.

import { TERMINAL_STATES, TRACE_STATES, canTransition } from './protocol.js';

export const CONTROL = 'aghcheck.control/v1';
export const INITIATE = 'aghcheck.initiate/v1';

const PEER_ID = /^[a-z0-9][a-z0-9._-]{0,127}$/;
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const nonBlank = (v) => typeof v === 'string' && v.trim() !== '';

// parseScript reads ext["aghcheck.control/v1"] of an opening (opening =
// true) or a continuation, and walks it from the work's state. It returns
// { receipt, reason, traces } (receipt '' sends none), or { error } saying
// what makes the script one the peer refuses.
export function parseScript(raw, opening, state) {
  if (!isObject(raw)) return { error: 'want an object' };
  const unknown = Object.keys(raw).filter((key) => !['receipt', 'reason_code', 'traces'].includes(key));
  if (unknown.length > 0) return { error: `unknown member ${unknown[0]}: want receipt, reason_code, traces` };
  const script = { receipt: '', reason: undefined, traces: [] };
  if (raw.receipt === undefined) {
    if (opening) script.receipt = 'accepted';
  } else if (raw.receipt === 'accepted' || raw.receipt === 'rejected') {
    script.receipt = raw.receipt;
  } else {
    return { error: `receipt ${JSON.stringify(raw.receipt)}: want accepted or rejected` };
  }
  if (raw.reason_code !== undefined) {
    if (!nonBlank(raw.reason_code) || script.receipt !== 'rejected') {
      return { error: 'reason_code goes with receipt rejected, as a non-empty string' };
    }
    script.reason = raw.reason_code;
  } else if (script.receipt === 'rejected') {
    script.reason = 'busy';
  }
  if (raw.traces !== undefined) {
    if (!Array.isArray(raw.traces)) return { error: 'traces: want an array' };
    for (const [i, t] of raw.traces.entries()) {
      if (!isObject(t)) return { error: `traces[${i}]: want an object` };
      if (!TRACE_STATES.includes(t.state)) {
        return { error: `traces[${i}]: ${t.state === undefined ? 'a missing state' : `unknown state ${JSON.stringify(t.state)}`}` };
      }
      const extra = Object.keys(t).find((key) => !['state', 'message', 'result', 'artifact_refs'].includes(key));
      if (extra !== undefined) return { error: `traces[${i}]: unknown member ${extra}` };
      if (t.state === 'submitted') return { error: `traces[${i}]: submitted is where work starts, never a state to report` };
      const body = { state: t.state };
      if (t.message !== undefined) {
        if (typeof t.message !== 'string') return { error: `traces[${i}].message: want a string` };
        body.message = t.message;
      }
      if (t.result !== undefined) {
        if (!isObject(t.result)) return { error: `traces[${i}].result: want an object` };
        body.result = t.result;
      }
      if (t.artifact_refs !== undefined) {
        if (!Array.isArray(t.artifact_refs)) return { error: `traces[${i}].artifact_refs: want an array` };
        body.artifact_refs = t.artifact_refs;
      }
      script.traces.push(body);
    }
  }
  // The peer never emits an illegal transition: walk the script first.
  let now = afterReceipt(script, state);
  for (const [i, t] of script.traces.entries()) {
    if (!canTransition(now, t.state)) {
      const why = TERMINAL_STATES.includes(now) ? `nothing may follow ${now}` : `${t.state} cannot follow ${now}`;
      return { error: `traces[${i}]: ${why}` };
    }
    now = t.state;
  }
  return script;
}

// afterReceipt is the state a scripted receipt leaves the work in: on an
// opening accepted starts it and rejected fails it; a receipt on a
// continuation acknowledges the message and does not move the work.
export function afterReceipt(script, state) {
  if (state !== 'submitted') return state;
  if (script.receipt === 'accepted') return 'working';
  if (script.receipt === 'rejected') return 'failed';
  return state;
}

// parseOrder checks one initiation order (docs/control-extension.md, "The
// order") and returns it with its defaults filled in, or { error }.
export function parseOrder(o, self) {
  if (!isObject(o)) return { error: 'an order is an object' };
  const bad = [];
  const known = ['to', 'kind', 'surface', 'text', 'capability', 'expires_in', 'answer', 'cancel_on'];
  for (const key of Object.keys(o)) if (!known.includes(key)) bad.push(`unknown member ${key}`);
  if (!(typeof o.to === 'string' && PEER_ID.test(o.to))) bad.push('to is required, a peer id');
  else if (o.to === self) bad.push('to names this peer');
  if (o.kind !== 'say' && o.kind !== 'capability') bad.push(`kind ${JSON.stringify(o.kind)} is not say or capability`);
  if (o.surface !== 'thread' && o.surface !== 'direct') bad.push(`surface ${JSON.stringify(o.surface)} is not thread or direct`);
  for (const key of ['text', 'answer']) {
    if (o[key] !== undefined && typeof o[key] !== 'string') bad.push(`${key} is not a string`);
  }
  if (o.kind === 'capability' && !isObject(o.capability)) bad.push('a capability order needs capability, an object');
  if (o.capability !== undefined && !isObject(o.capability)) bad.push('capability is not an object');
  if (o.expires_in !== undefined && o.expires_in !== 0
    && !(Number.isInteger(o.expires_in) && o.expires_in >= 1 && o.expires_in <= 3600)) {
    bad.push(`expires_in ${JSON.stringify(o.expires_in)} is not between 1 and 3600`);
  }
  if (o.cancel_on !== undefined && o.cancel_on !== '' && o.cancel_on !== 'working' && o.cancel_on !== 'needs_input') {
    bad.push(`cancel_on ${JSON.stringify(o.cancel_on)} is not working or needs_input`);
  }
  if (bad.length > 0) return { error: bad.join('; ') };
  return {
    to: o.to,
    kind: o.kind,
    surface: o.surface,
    text: nonBlank(o.text) ? o.text : 'Please do this work.',
    capability: o.capability,
    expiresIn: o.expires_in || 0,
    answer: nonBlank(o.answer) ? o.answer : undefined,
    cancelOn: o.cancel_on || undefined,
  };
}

// parseOrders reads the start-up file's text ({"orders": [ORDER, ...]}).
// It throws on a file that is not one, naming the first problem.
export function parseOrders(text, self) {
  const file = JSON.parse(text);
  if (!isObject(file) || !Array.isArray(file.orders ?? [])) throw new Error('want {"orders": [...]}');
  return (file.orders ?? []).map((o, i) => {
    const order = parseOrder(o, self);
    if (order.error) throw new Error(`order ${i + 1}: ${order.error}`);
    return order;
  });
}

// parseRequest reads an in-band request: an object with exactly one of
// initiate, continue and cancel. It returns { initiate: order },
// { continue: { workId, text } }, { cancel: { workId } } or { error }.
export function parseRequest(raw, self) {
  if (!isObject(raw)) return { error: 'a request is an object' };
  const keys = Object.keys(raw);
  if (keys.length !== 1) return { error: `want exactly one of initiate, continue, cancel; got ${keys.join(', ') || 'none'}` };
  const [key] = keys;
  const value = raw[key];
  switch (key) {
    case 'initiate': {
      const order = parseOrder(value, self);
      return order.error ? { error: `initiate: ${order.error}` } : { initiate: order };
    }
    case 'continue':
      if (!isObject(value) || !nonBlank(value.work_id) || (value.text !== undefined && typeof value.text !== 'string')) {
        return { error: 'continue: want {"work_id": W, "text": T}' };
      }
      return { continue: { workId: value.work_id, text: nonBlank(value.text) ? value.text : 'More input.' } };
    case 'cancel':
      if (!isObject(value) || !nonBlank(value.work_id)) return { error: 'cancel: want {"work_id": W}' };
      return { cancel: { workId: value.work_id } };
    default:
      return { error: `unknown request ${key}` };
  }
}
