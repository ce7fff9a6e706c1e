// Checks Kubernetes manifests against the Kubernetes API schemas, offline: every object is validated by the
// kubernetes-models class of its apiVersion and kind (validators generated from the Kubernetes OpenAPI spec: types,
// required fields, enums, formats). Those validators let unknown fields through, so every field is also looked up in
// the package's type declarations (generated from the same spec), as kubeconform -strict does: a misspelt field is
// an error, not a field the API server drops. Then the references between the objects, which no schema sees:
// selectors and labels, port names, volumes, ConfigMaps, Secrets and their keys.
//
// node check.mjs [FILE...]   (default: every *.yaml beside this file)
// Prints one line per object; exit code 0 when all pass, 1 with one line per problem otherwise.
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";

const KINDS = {
  "apps/v1/Deployment": "kubernetes-models/apps/v1/Deployment",
  "v1/Service": "kubernetes-models/v1/Service",
  "v1/Secret": "kubernetes-models/v1/Secret",
  "v1/ConfigMap": "kubernetes-models/v1/ConfigMap",
  "v1/ServiceAccount": "kubernetes-models/v1/ServiceAccount",
  "policy/v1/PodDisruptionBudget": "kubernetes-models/policy/v1/PodDisruptionBudget",
  "networking.k8s.io/v1/NetworkPolicy": "kubernetes-models/networking.k8s.io/v1/NetworkPolicy",
};

const here = dirname(fileURLToPath(import.meta.url));
const files = process.argv.length > 2 ? process.argv.slice(2)
  : readdirSync(here).filter((f) => f.endsWith(".yaml")).sort().map((f) => join(here, f));
const problems = [];
const objects = [];
const declarations = new Map(); // type declaration file -> its fields

for (const file of files) {
  const docs = parseAllDocuments(readFileSync(file, "utf8"));
  for (const doc of docs) {
    if (doc.errors.length > 0) {
      for (const e of doc.errors) problems.push(`${file}: YAML: ${e.message}`);
      continue;
    }
    const obj = doc.toJS();
    if (obj === null || obj === undefined) continue;
    const where = `${file}: ${obj.kind ?? "?"} ${obj.metadata?.name ?? "?"}`;
    const module = KINDS[`${obj.apiVersion}/${obj.kind}`];
    if (!module) {
      problems.push(`${where}: no schema for apiVersion ${obj.apiVersion} kind ${obj.kind} (known: ${Object.keys(KINDS).join(", ")})`);
      continue;
    }
    const Model = Object.values(await import(module))[0];
    try {
      new Model(obj).validate();
    } catch (e) {
      problems.push(`${where}: ${e.message.split("\n").join("; ")}`);
      continue;
    }
    const unknown = [];
    strict(obj, declaration(join(here, "node_modules", `${module}.d.ts`)), "", unknown);
    if (unknown.length > 0) {
      for (const path of unknown) problems.push(`${where}: unknown field ${path}`);
      continue;
    }
    objects.push({ where, obj });
    console.log(`${where}: valid ${obj.apiVersion} ${obj.kind}`);
  }
}

// The fields each type declares, read from kubernetes-models' declarations: `export interface I... { "name"?: TYPE; }`
// with TYPE a primitive, a literal, Array<T>, { [key: string]: T } or an imported interface.
function declaration(file) {
  const text = readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\//g, "");
  const imports = new Map();
  for (const m of text.matchAll(/import \{([^}]*)\} from "([^"]+)";/g)) {
    const from = m[2].startsWith(".") ? resolve(dirname(file), m[2].replace(/\.js$/, ""))
      : join(here, "node_modules", m[2]);
    for (const name of m[1].split(",").map((n) => n.trim()).filter(Boolean)) imports.set(name, `${from}.d.ts`);
  }
  const start = text.match(/export interface \w+(?: extends ([\w, ]+))? \{/);
  if (!start) return null; // a type alias (IntOrString, Quantity, Time): a scalar
  const fields = new Map();
  if (start[1]) { fields.set("apiVersion", "string"); fields.set("kind", "string"); }
  const body = text.slice(start.index + start[0].length);
  let i = 0;
  for (;;) {
    const m = /^\s*"([^"]+)"\??:\s*/.exec(body.slice(i));
    if (!m) break;
    i += m[0].length;
    let depth = 0, type = "";
    for (; i < body.length; i++) {
      const c = body[i];
      if ("{<(".includes(c)) depth++;
      if ("}>)".includes(c)) depth--;
      if (c === ";" && depth === 0) { i++; break; }
      type += c;
    }
    fields.set(m[1], type.replace(/\s+/g, " ").trim());
  }
  return { file, imports, fields };
}

function strict(value, decl, path, unknown) {
  if (decl === null || value === null || typeof value !== "object" || Array.isArray(value)) return;
  for (const [key, v] of Object.entries(value)) {
    const type = decl.fields.get(key);
    if (type === undefined) { unknown.push(`${path}.${key}`.replace(/^\./, "")); continue; }
    walk(v, type, decl, `${path}.${key}`, unknown);
  }
}
function walk(value, type, decl, path, unknown) {
  if (value === null || value === undefined) return;
  let m;
  if ((m = /^Array<(.*)>$/.exec(type))) {
    if (Array.isArray(value)) value.forEach((v, i) => walk(v, m[1], decl, `${path}[${i}]`, unknown));
  } else if ((m = /^\{ \[key: string\]: (.*);? \}$/.exec(type))) {
    for (const [k, v] of Object.entries(value)) walk(v, m[1].replace(/;$/, ""), decl, `${path}.${k}`, unknown);
  } else if (decl.imports.has(type)) {
    const file = decl.imports.get(type);
    if (!declarations.has(file)) declarations.set(file, declaration(file));
    strict(value, declarations.get(file), path, unknown);
  }
}

// References between the objects, once every object is valid (an invalid one would only add noise here).
const schemaProblems = problems.length;
const byKind = (kind) => objects.filter((o) => o.obj.kind === kind);
const matches = (selector, labels) => Object.entries(selector ?? {}).every(([k, v]) => labels?.[k] === v);
const named = (kind, name) => byKind(kind).find((o) => o.obj.metadata.name === name);
for (const { where, obj } of schemaProblems > 0 ? [] : byKind("Deployment")) {
  const pod = obj.spec.template;
  if (!matches(obj.spec.selector.matchLabels, pod.metadata?.labels)) {
    problems.push(`${where}: spec.selector.matchLabels does not match spec.template.metadata.labels`);
  }
  const volumes = new Map((pod.spec.volumes ?? []).map((v) => [v.name, v]));
  for (const v of volumes.values()) {
    if (v.configMap && !named("ConfigMap", v.configMap.name)) problems.push(`${where}: volume ${v.name} names ConfigMap ${v.configMap.name}, which is not in the manifests`);
    if (v.secret && !named("Secret", v.secret.secretName)) problems.push(`${where}: volume ${v.name} names Secret ${v.secret.secretName}, which is not in the manifests`);
  }
  for (const c of pod.spec.containers) {
    const ports = new Set((c.ports ?? []).map((p) => p.name).filter(Boolean));
    for (const probe of ["startupProbe", "livenessProbe", "readinessProbe"]) {
      const port = c[probe]?.httpGet?.port;
      if (typeof port === "string" && !ports.has(port)) problems.push(`${where}: container ${c.name} ${probe} names port ${port}, which the container does not declare`);
    }
    for (const m of c.volumeMounts ?? []) {
      const v = volumes.get(m.name);
      if (!v) { problems.push(`${where}: container ${c.name} mounts volume ${m.name}, which the pod does not declare`); continue; }
      if (m.subPath && v.secret) {
        const secret = named("Secret", v.secret.secretName)?.obj;
        if (secret && !(m.subPath in { ...secret.data, ...secret.stringData })) problems.push(`${where}: container ${c.name} mounts key ${m.subPath} of Secret ${secret.metadata.name}, which has no such key`);
      }
    }
    for (const e of c.env ?? []) {
      const ref = e.valueFrom?.secretKeyRef;
      if (!ref) continue;
      const secret = named("Secret", ref.name)?.obj;
      if (!secret) problems.push(`${where}: env ${e.name} names Secret ${ref.name}, which is not in the manifests`);
      else if (!(ref.key in { ...secret.data, ...secret.stringData })) problems.push(`${where}: env ${e.name} names key ${ref.key} of Secret ${ref.name}, which has no such key`);
    }
  }
}
for (const { where, obj } of schemaProblems > 0 ? [] : byKind("Service")) {
  const pods = byKind("Deployment").filter((d) => matches(obj.spec.selector, d.obj.spec.template.metadata?.labels));
  if (pods.length === 0) { problems.push(`${where}: spec.selector matches no Deployment's pods`); continue; }
  for (const p of obj.spec.ports) {
    if (typeof p.targetPort !== "string") continue;
    const declared = pods.some((d) => d.obj.spec.template.spec.containers.some((c) => (c.ports ?? []).some((cp) => cp.name === p.targetPort)));
    if (!declared) problems.push(`${where}: port ${p.name ?? p.port} targets port ${p.targetPort}, which no selected container declares`);
  }
}
for (const { where, obj } of schemaProblems > 0 ? [] : byKind("PodDisruptionBudget")) {
  if (!byKind("Deployment").some((d) => matches(obj.spec.selector.matchLabels, d.obj.spec.template.metadata?.labels))) {
    problems.push(`${where}: spec.selector matches no Deployment's pods`);
  }
}

if (objects.length === 0 && problems.length === 0) problems.push("no Kubernetes object found");
for (const p of problems) console.error(`INVALID ${p}`);
console.log(`${objects.length} objects checked, ${problems.length} problems`);
process.exit(problems.length === 0 ? 0 : 1);
