// Small but real JS workload: zlib deflate/inflate, JSON round trips,
// sorting, regexp scanning. With --worker it also starts a worker_thread
// that does its own (different) work, so `node --cpu-prof` writes 2 profiles.
'use strict';
const zlib = require('zlib');
const { Worker, isMainThread, parentPort } = require('worker_threads');
const { performance } = require('perf_hooks');

function makeRecords(n, seed) {
  let x = seed >>> 0;
  const rnd = () => ((x = (x * 1103515245 + 12345) >>> 0) / 4294967296);
  const out = [];
  for (let i = 0; i < n; i++) {
    out.push({ id: i, name: 'item-' + Math.floor(rnd() * 1e6), score: rnd() * 100,
               tags: ['a' + (i % 7), 'b' + (i % 13)], email: `user${i}@example.org` });
  }
  return out;
}

function jsonRoundTrip(recs) {
  const s = JSON.stringify(recs);
  return JSON.parse(s).length + s.length;
}

function compressCycle(recs) {
  const buf = Buffer.from(JSON.stringify(recs));
  const z = zlib.deflateSync(buf, { level: 9 });
  const back = zlib.inflateSync(z);
  return z.length + back.length;
}

function sortRecords(recs) {
  const copy = recs.slice();
  copy.sort((a, b) => a.score - b.score || a.name.localeCompare(b.name));
  return copy[0].id;
}

function regexScan(recs) {
  const re = /^user(\d+)@([a-z]+)\.org$/;
  let total = 0;
  for (const r of recs) {
    const m = re.exec(r.email);
    if (m) total += parseInt(m[1], 10) + m[2].length;
  }
  return total;
}

function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

function mainWork(rounds) {
  let acc = 0;
  for (let r = 0; r < rounds; r++) {
    performance.mark('round-start');
    const recs = makeRecords(4000, r + 1);
    acc += jsonRoundTrip(recs);
    acc += compressCycle(recs);
    acc += sortRecords(recs);
    acc += regexScan(recs);
    performance.measure('round', 'round-start');
  }
  return acc;
}

function workerWork(rounds) {
  let acc = 0;
  for (let r = 0; r < rounds; r++) {
    acc += fib(24);
    const recs = makeRecords(2000, 1000 + r);
    acc += sortRecords(recs);
    acc += compressCycle(recs);
  }
  return acc;
}

if (isMainThread) {
  const withWorker = process.argv.includes('--worker');
  const rounds = Number(process.env.ROUNDS || 12);
  if (withWorker) {
    const w = new Worker(__filename, { argv: ['--child'] });
    w.on('message', (m) => console.log('worker result', m));
    w.on('exit', () => console.log('worker exit'));
  }
  console.log('main result', mainWork(rounds));
} else {
  parentPort.postMessage(workerWork(Number(process.env.ROUNDS || 12)));
}
