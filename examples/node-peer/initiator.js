// The peer as the INITIATOR of work: it opens work with another peer when
// an order says so (docs/control-extension.md, "Initiation"), continues it
// when the target asks for input, cancels it, and applies what the target
// sends back to its own table of the work it opened.
//
// peer.js hands it only what already passed the receiver's checks in
// protocol.js (a valid, fresh, directed envelope not seen before), so here
// the initiator's own rules remain: the target's, in the work's container,
// a legal transition, and nothing more sent once the work is over.

import { randomBytes } from 'node:crypto';

import { TERMINAL_STATES, canTransition, capabilityDigest, containerOf, directId, sameContainer } from './protocol.js';

const hex = (bytes) => randomBytes(bytes).toString('hex');
const REFUSALS = ['rejected', 'expired', 'unsupported'];

// createInitiator returns the initiator of peer self. envelope(kind,
// fields, body) builds an envelope from self, publish(env) sends it on the
// subject of its to, refuse(msg, reasonCode) answers a message it will not
// apply, log writes to standard error.
export function createInitiator({ self, workspace, channel, envelope, publish, refuse, log }) {
  // Work this peer opened, by work_id.
  const initiated = new Map();

  const over = (work) => TERMINAL_STATES.includes(work.state) || work.closed;
  const fields = (work, extra = {}) => ({ to: work.target, ...work.container, work_id: work.workId, ...extra });

  // initiate carries out an order: it opens the work and remembers it.
  function initiate(order) {
    const workId = `work_${hex(16)}`;
    const container = order.surface === 'direct'
      ? { surface: 'direct', direct_id: directId(workspace, channel, self, order.to) }
      : { surface: 'thread', thread_id: `thread_${hex(16)}` };
    let body;
    if (order.kind === 'say') {
      body = { text: order.text };
    } else {
      try {
        body = { capability: { ...order.capability, digest: capabilityDigest(order.capability) } };
      } catch (err) {
        return log('order not carried out: capability:', err.message);
      }
    }
    const work = { workId, target: order.to, container, order, state: 'submitted', closed: false, cancelSent: false };
    const opening = envelope(order.kind, fields(work), body);
    if (order.expiresIn > 0) opening.expires_at = opening.ts + order.expiresIn;
    work.openingId = opening.id;
    initiated.set(workId, work);
    log('initiated', workId, 'with', order.to, `(${order.kind}, ${order.surface})`);
    publish(opening);
    return workId;
  }

  // continueWork sends a continuation say on open work; causedBy is the
  // needs_input trace it answers, if any.
  function continueWork(workId, text, causedBy) {
    const work = initiated.get(workId);
    if (!work) return log('continue: no work', workId, 'opened here');
    if (over(work)) return log('continue: work', workId, 'is over:', work.closed ? 'closed' : work.state);
    const extra = causedBy ? { causation_id: causedBy } : {};
    publish(envelope('say', fields(work, extra), { text }));
  }

  // cancelWork cancels open work, once: a receipt status=canceled whose
  // for_id is the opening.
  function cancelWork(workId) {
    const work = initiated.get(workId);
    if (!work) return log('cancel: no work', workId, 'opened here');
    if (over(work)) return log('cancel: work', workId, 'is over:', work.closed ? 'closed' : work.state);
    if (work.cancelSent) return log('cancel: work', workId, 'is already canceled');
    work.cancelSent = true;
    publish(envelope('receipt', fields(work), { for_id: work.openingId, status: 'canceled' }));
  }

  // reached runs the order's duties when the work arrives at state:
  // cancel_on first (a canceled work is not answered), then answer.
  function reached(work, state, msg) {
    if (work.order.cancelOn === state && !work.cancelSent) return cancelWork(work.workId);
    if (state === 'needs_input' && work.order.answer && !work.cancelSent) {
      continueWork(work.workId, work.order.answer, msg.id);
    }
  }

  // apply takes a valid, fresh, directed message carrying the work_id of
  // work this peer opened.
  function apply(msg) {
    const work = initiated.get(msg.work_id);
    if (!sameContainer(containerOf(msg), work.container)) return refuse(msg, 'work_container_mismatch');
    if (msg.from !== work.target) return refuse(msg, 'not_target');
    if (msg.kind === 'receipt') return receipt(work, msg);
    if (msg.kind === 'trace') return trace(work, msg);
    // A say or capability from the target on our work is conversation.
    log(msg.kind, 'from', msg.from, 'on work', work.workId, 'taken as conversation');
  }

  function receipt(work, msg) {
    const { status, reason_code: reason, for_id: forId } = msg.body;
    if (status === 'duplicate') return; // our message was seen twice: nothing changes
    if (reason === 'work_closed' && !over(work)) {
      work.closed = true;
      return log('work', work.workId, 'closed, says', msg.from);
    }
    if (forId !== work.openingId || over(work)) return;
    if (status === 'accepted' && work.state === 'submitted') {
      work.state = 'working';
      return reached(work, 'working', msg);
    }
    if (REFUSALS.includes(status) && canTransition(work.state, 'failed')) {
      work.state = 'failed';
      log('work', work.workId, 'refused by', msg.from + ':', status, reason);
    }
  }

  function trace(work, msg) {
    const { state } = msg.body;
    if (over(work) || !canTransition(work.state, state)) {
      return log('ignored trace', msg.id, 'of work', work.workId + ':', state, 'after', work.closed ? 'closed' : work.state);
    }
    work.state = state;
    reached(work, state, msg);
  }

  return { initiate, continueWork, cancelWork, apply, owns: (workId) => initiated.has(workId) };
}
