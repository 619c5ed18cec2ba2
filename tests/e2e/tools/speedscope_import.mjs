// speedscope_import.mjs - loads FILE with speedscope's own importer (the
// npm package's browser bundle, run in node: its import module is reached
// through the promise the bundle keeps for it) and prints what speedscope
// made of it as JSON: the importer it picked (from its log), and per
// profile its name, unit, total weight and each frame's self and total
// weight. Usage: node speedscope_import.mjs BUNDLE.js FILE
import fs from 'fs';

const [bundle, file] = process.argv.slice(2);
let src = fs.readFileSync(bundle, 'utf8');
// `var X=Promise.resolve().then(()=>(Y(),Z));` holds the import module
const m = src.match(/var (\w+)=Promise\.resolve\(\)\.then\(\(\)=>\(\w+\(\),\w+\)\);/);
if (!m || !src.includes('importProfileGroupFromText'))
  throw new Error('speedscope bundle: import module not found');
src = src.replace(m[0], m[0] + 'globalThis.__speedscopeImport=' + m[1] + ';');
globalThis.window = globalThis;
globalThis.location = { hash: '', search: '', href: 'file:///' };
const log = [];
const origLog = console.log, origWarn = console.warn;
console.log = (...a) => log.push(a.join(' '));
console.warn = (...a) => log.push('warn: ' + a.join(' '));
try {
  (0, eval)(src);
} catch (e) {
  // the user interface part needs a DOM; the importer does not
}
const mod = await globalThis.__speedscopeImport;
const group = await mod.importProfileGroupFromText(file, fs.readFileSync(file, 'utf8'));
console.log = origLog;
console.warn = origWarn;
const out = { log, profiles: [] };
if (group) {
  for (const p of group.profiles) {
    const frames = {};
    p.forEachFrame(f => {
      frames[f.name] = { self: f.getSelfWeight(), total: f.getTotalWeight() };
    });
    out.profiles.push({ name: p.getName(), unit: p.getWeightUnit(), total: p.getTotalWeight(), frames });
  }
}
process.stdout.write(JSON.stringify(out) + '\n');
