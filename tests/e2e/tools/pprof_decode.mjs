// pprof_decode.mjs - decodes a gzipped profile.proto with the npm
// pprof-format decoder and prints it as JSON: sample types, default
// sample type, and per function (by name) the sum of each value over the
// samples whose leaf it is (flat) and over the samples it appears in
// (cum), with the mapping file of its location and its system_name. Usage:
//   node pprof_decode.mjs NODE_MODULES FILE
import fs from 'fs';
import path from 'path';
import zlib from 'zlib';
import { pathToFileURL } from 'url';

const [modules, file] = process.argv.slice(2);
const { Profile } = await import(pathToFileURL(path.join(modules, 'pprof-format', 'dist', 'esm', 'index.js')).href);
const p = Profile.decode(zlib.gunzipSync(fs.readFileSync(file)));
const str = i => p.stringTable.strings[Number(i)];
const fn = new Map(p.function.map(f => [String(f.id), f]));
const map = new Map(p.mapping.map(m => [String(m.id), m]));
const loc = new Map(p.location.map(l => [String(l.id), l]));
const funcs = {};
const nvals = p.sampleType.length;
for (const s of p.sample) {
  const seen = new Set();
  s.locationId.forEach((id, k) => {
    const l = loc.get(String(id));
    const f = fn.get(String(l.line[0].functionId));
    const name = str(f.name);
    const m = map.get(String(l.mappingId));
    const e = funcs[name] ??= { flat: Array(nvals).fill(0), cum: Array(nvals).fill(0),
                                file: m ? str(m.filename) : null, system: str(f.systemName) };
    for (let v = 0; v < nvals; v++) {
      if (k === 0) e.flat[v] += Number(s.value[v]);
      if (!seen.has(name)) e.cum[v] += Number(s.value[v]);
    }
    seen.add(name);
  });
}
process.stdout.write(JSON.stringify({
  sampleType: p.sampleType.map(t => [str(t.type), str(t.unit)]),
  defaultSampleType: str(p.defaultSampleType),
  samples: p.sample.length,
  durationNanos: Number(p.durationNanos),
  functions: funcs,
}) + '\n');
