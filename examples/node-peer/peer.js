#!/usr/bin/env node
// A small AGH Network v0 peer on NATS: it joins one workspace channel,
// answers whois, serves directed work by echoing the request back, and
// opens work with other peers when aghcheck orders it to.
//
// Configuration is the aghcheck IUT contract: AGH_NATS_URL (one URL or
// several, comma-separated), AGH_NATS_TOKEN, AGH_NATS_USER and
// AGH_NATS_PASSWORD or AGH_NATS_CREDS, AGH_WORKSPACE_ID, AGH_CHANNEL,
// AGH_PEER_ID, AGH_GREET_INTERVAL (seconds, default 30) and AGH_INITIATE
// (a file of initiation orders, see control.js). The one flag,
// --no-control, turns aghcheck's in-band test extension off.

import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect, credsAuthenticator } from 'nats';

import { CONTROL, INITIATE, afterReceipt, parseOrders, parseRequest, parseScript } from './control.js';
import { createInitiator } from './initiator.js';
import {
  PROTOCOL, TERMINAL_STATES, answerable, capabilityDigest, check, containerOf, parse, routeToken, sameContainer,
} from './protocol.js';

const env = process.env;
const self = env.AGH_PEER_ID || `node-peer.${randomUUID().slice(0, 8)}`;
const workspace = env.AGH_WORKSPACE_ID;
const channel = env.AGH_CHANNEL || 'default';
const greetSeconds = Number(env.AGH_GREET_INTERVAL || 30);
if (!workspace || !(greetSeconds > 0)) {
  console.error('node-peer: set AGH_WORKSPACE_ID (and AGH_GREET_INTERVAL, if at all, to a positive number of seconds)');
  process.exit(2);
}
const unknownFlags = process.argv.slice(2).filter((a) => a !== '--no-control');
if (unknownFlags.length > 0) {
  console.error('node-peer: unknown arguments', unknownFlags.join(' '), '(the one flag is --no-control)');
  process.exit(2);
}
// aghcheck.control/v1, the test extension: scripts on the work it is sent
// and in-band initiation requests. --no-control plays a peer without it.
const control = !process.argv.includes('--no-control');
// The initiation orders of the start-up file, carried out when their
// target greets.
let orders = [];
if (env.AGH_INITIATE) {
  try {
    orders = parseOrders(readFileSync(env.AGH_INITIATE, 'utf8'), self);
  } catch (err) {
    console.error(`node-peer: AGH_INITIATE ${env.AGH_INITIATE}: ${err.message}`);
    process.exit(2);
  }
}

const prefix = `agh.network.v0.${workspace}.${channel}`;
const broadcastSubject = `${prefix}.broadcast`;
const ownSubject = `${prefix}.peer.${routeToken(self)}`;
const log = (...words) => console.error('node-peer:', ...words);
const now = () => Math.floor(Date.now() / 1000);

// The one capability this peer offers; its digest is computed, never
// written by hand.
const echo = {
  id: 'echo',
  summary: 'Echo the request text back as the work result.',
  outcome: 'A completed trace whose result.echo is the request text.',
  version: '1.0.0',
};
echo.digest = capabilityDigest(echo);

const card = {
  peer_id: self,
  display_name: 'Node.js example peer',
  profiles_supported: control ? [PROTOCOL, CONTROL, INITIATE] : [PROTOCOL, INITIATE],
  capabilities: [echo.id],
  // It takes capability work (the echo capability): Peer Discovery asks such
  // a peer to list capability among the artifacts it supports.
  artifacts_supported: ['capability'],
  trust_modes_supported: ['unverified'],
  ext: { 'agh.capabilities_brief': [{ id: echo.id, summary: echo.summary }] },
};

// Work where this peer is the target, by work_id; and the (sender, id)
// pairs seen within the replay window, to process each message once.
const works = new Map();
const seen = new Map();

const nc = await connect({
  servers: (env.AGH_NATS_URL || 'nats://127.0.0.1:4222').split(','),
  name: self,
  token: env.AGH_NATS_TOKEN || undefined,
  user: env.AGH_NATS_USER || undefined,
  pass: env.AGH_NATS_PASSWORD || undefined,
  authenticator: env.AGH_NATS_CREDS ? credsAuthenticator(readFileSync(env.AGH_NATS_CREDS)) : undefined,
  maxReconnectAttempts: -1,
});

function publish(envelope) {
  const subject = envelope.to ? `${prefix}.peer.${routeToken(envelope.to)}` : broadcastSubject;
  nc.publish(subject, JSON.stringify(envelope));
}

function envelope(kind, fields, body) {
  return { protocol: PROTOCOL, id: randomUUID(), workspace_id: workspace, kind, channel, from: self, to: null, ts: now(), ...fields, body, proof: null };
}

const greet = () => publish(envelope('greet', {}, { peer_card: card, summary: 'Send me directed work: I echo it back.' }));

// replyFields addresses an answer to msg's sender, in msg's work and
// container, caused by msg.
function replyFields(msg, container = containerOf(msg)) {
  const fields = { to: msg.from, ...container, work_id: msg.work_id, causation_id: msg.id };
  // Only a sound trace_id is carried on: an answer must not repeat what
  // broke the message it answers.
  if (typeof msg.trace_id === 'string' && msg.trace_id.trim() !== '') fields.trace_id = msg.trace_id;
  return fields;
}

function receipt(msg, status, reasonCode, container, detail) {
  const body = { for_id: msg.id, status };
  if (reasonCode) body.reason_code = reasonCode;
  if (detail) body.detail = detail;
  publish(envelope('receipt', { ...replyFields(msg, container), reply_to: msg.id }, body));
}

// refuse answers a refused message with a receipt of its failure class,
// when it is one that can be answered.
function refuse(msg, reasonCode) {
  log('refused', msg.kind, msg.id, reasonCode);
  if (!answerable(msg)) return;
  const status = ['expired', 'duplicate'].includes(reasonCode) ? reasonCode
    : reasonCode.startsWith('unsupported_') ? 'unsupported' : 'rejected';
  receipt(msg, status, reasonCode);
}

function trace(msg, work, body) {
  work.state = body.state;
  publish(envelope('trace', { ...replyFields(msg, work.container), to: work.initiator }, body));
}

function handle(subject, data) {
  const msg = parse(data);
  if (msg === null) return log('dropped: not one JSON object');
  // Not ours: our own echo, another workspace or channel, or directed
  // traffic for someone else seen on the broadcast subject.
  if (msg.from === self || msg.workspace_id !== workspace || msg.channel !== channel) return;
  if (msg.to != null && msg.to !== self && subject !== ownSubject) return;

  const problem = check(msg, now());
  if (problem) {
    if (problem.sound) refuse(msg, problem.reason);
    else log('dropped:', problem.reason);
    return;
  }
  if (msg.to != null && msg.to !== self) return refuse(msg, 'not_target');
  const key = `${msg.from}\n${msg.id}`;
  if (seen.has(key)) return refuse(msg, 'duplicate');
  seen.set(key, Math.max(now(), msg.expires_at ?? 0) + 300);

  const directed = msg.to === self;
  switch (msg.kind) {
    case 'greet':
      // A peer greeting on the broadcast subject sets off the start-up
      // orders that name it, once per greet.
      if (subject === broadcastSubject) for (const order of orders) if (order.to === msg.from) initiator.initiate(order);
      return;
    case 'whois':
      return whois(msg, directed);
    case 'say':
    case 'capability':
    case 'receipt':
    case 'trace':
      if (directed && msg.work_id != null) {
        return initiator.owns(msg.work_id) ? initiator.apply(msg) : lifecycle(msg);
      }
      if (directed && msg.kind === 'say' && control && msg.ext?.[CONTROL] !== undefined) return request(msg);
      if (msg.kind === 'say') log('say from', msg.from + ':', msg.body.text);
  }
}

// request carries out an in-band control request (a directed say without
// work_id); the say itself is answered with nothing.
function request(msg) {
  const req = parseRequest(msg.ext[CONTROL], self);
  if (req.error) return log(`ignored ${CONTROL} request from ${msg.from}: ${req.error}`);
  if (req.initiate) initiator.initiate(req.initiate);
  else if (req.continue) initiator.continueWork(req.continue.workId, req.continue.text);
  else initiator.cancelWork(req.cancel.workId);
}

// whois: a directed request is always answered; a broadcast one only when
// its query names this peer or something its card lists.
function whois(msg, directed) {
  if (msg.body.type !== 'request') return;
  const query = (msg.body.query ?? '').trim();
  const listed = [self, card.display_name, ...card.profiles_supported, ...card.capabilities, ...card.artifacts_supported, ...card.trust_modes_supported];
  if (!directed && query !== '' && !listed.includes(query)) return;
  const fields = { to: msg.from, reply_to: msg.id };
  const include = msg.ext?.['agh.include'];
  if (include === 'capability_catalog' || (Array.isArray(include) && include.includes('capability_catalog'))) {
    const ids = msg.ext['agh.capability_ids'];
    const capabilities = [echo].filter((c) => !Array.isArray(ids) || ids.includes(c.id));
    fields.ext = { 'agh.capability_catalog': { capabilities } };
  }
  publish(envelope('whois', fields, { type: 'response', peer_card: card }));
}

// lifecycle applies a directed message carrying a work_id to its work.
function lifecycle(msg) {
  const work = works.get(msg.work_id);
  if (!work) {
    // A say or capability with a new work_id opens work; receipts and
    // traces for work we never saw change nothing.
    if (msg.kind === 'say' || msg.kind === 'capability') open(msg);
    return;
  }
  if (!sameContainer(containerOf(msg), work.container)) return refuse(msg, 'work_container_mismatch');
  if (msg.from !== work.initiator) return refuse(msg, 'not_target');
  const closed = TERMINAL_STATES.includes(work.state);
  if (msg.kind === 'receipt') {
    if (msg.body.status !== 'canceled' || work.state === 'canceled') return; // cancelling twice is a no-op
    if (closed) return receipt(msg, 'rejected', 'work_closed', work.container);
    return trace(msg, work, { state: 'canceled', message: 'Canceled by the initiator.' });
  }
  if (closed) return receipt(msg, 'rejected', 'work_closed', work.container);
  // The initiator does not report progress on our work: a trace is ignored.
  if (msg.kind !== 'trace') continuation(msg, work);
}

function open(msg) {
  const work = { initiator: msg.from, container: containerOf(msg), state: 'submitted' };
  works.set(msg.work_id, work);
  if (control && msg.ext?.[CONTROL] !== undefined) return play(msg, work, parseScript(msg.ext[CONTROL], true, work.state));
  receipt(msg, 'accepted', undefined, work.container);
  trace(msg, work, { state: 'working' });
  finish(msg, work);
}

// finish completes the work with its echo: the say's text, or the id of
// the capability, of the message that opened or continued it.
function finish(msg, work) {
  const echoed = msg.kind === 'say' ? msg.body.text : msg.body.capability.id;
  trace(msg, work, { state: 'completed', message: 'Echoed.', result: { echo: echoed } });
}

// continuation takes a say or capability from the initiator on open work:
// input it asked for resumes the work; otherwise it is conversation.
function continuation(msg, work) {
  if (control && msg.ext?.[CONTROL] !== undefined) return play(msg, work, parseScript(msg.ext[CONTROL], false, work.state));
  if (work.state !== 'needs_input') return;
  trace(msg, work, { state: 'working' });
  finish(msg, work);
}

// play sends what an aghcheck.control/v1 script asks for, or refuses a
// script that is not one (or would break the lifecycle) with one receipt.
function play(msg, work, script) {
  if (script.error) {
    if (work.state === 'submitted') work.state = 'failed';
    return receipt(msg, 'rejected', 'malformed', work.container, `${CONTROL}: ${script.error}`);
  }
  if (script.receipt) {
    receipt(msg, script.receipt, script.reason, work.container);
    work.state = afterReceipt(script, work.state);
  }
  for (const body of script.traces) trace(msg, work, body);
}

// Forget (sender, id) pairs once their replay window has passed.
function sweep() {
  const t = now();
  for (const [key, until] of seen) if (until < t) seen.delete(key);
}

const initiator = createInitiator({ self, workspace, channel, envelope, publish, refuse, log });

const subscription = (subject) => nc.subscribe(subject, { callback: (err, m) => err ? log(err.message) : handle(m.subject, m.data) });
subscription(broadcastSubject);
subscription(ownSubject);
await nc.flush(); // subscribed before announcing ourselves
greet();
log(`joined ${prefix} as ${self}`);
const timer = setInterval(() => { greet(); sweep(); }, greetSeconds * 1000);

// Greet again after the broker connection comes back.
(async () => {
  for await (const s of nc.status()) if (s.type === 'reconnect') greet();
})();

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, async () => {
    clearInterval(timer);
    await nc.drain();
    process.exit(0);
  });
}
await nc.closed();
