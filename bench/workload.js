// A JavaScript workload of a few seconds for the memory table's CPU
// profile (node --cpu-prof): recursion, sorting, strings and JSON.
function fib(n) {
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}
function sortMany(k) {
  const a = [];
  for (let i = 0; i < k; i++) a.push((i * 7919) % 10007);
  return a.sort((x, y) => x - y);
}
function strings(k) {
  let s = '';
  for (let i = 0; i < k; i++) s += String.fromCharCode(65 + (i % 26));
  return s.split('').reverse().join('');
}
function json(k) {
  const o = [];
  for (let i = 0; i < k; i++) o.push({i, s: 'x' + i});
  return JSON.parse(JSON.stringify(o)).length;
}
const end = Date.now() + Number(process.argv[2] || 3000);
let rounds = 0;
while (Date.now() < end) {
  fib(18);
  sortMany(2000);
  strings(3000);
  json(500);
  rounds++;
}
console.log(rounds);
