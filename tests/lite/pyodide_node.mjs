// Install the ktheory wheel in Pyodide under Node, with no network: the interpreter and
// micropip come from the site's own Pyodide directory (argv[2]), the wheel from argv[3].
// Prints one JSON line with what it found; tests/test_lite.py checks it.
import { readFileSync } from "node:fs";
import { basename, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [dir, wheel] = [resolve(process.argv[2]), resolve(process.argv[3])];
const { loadPyodide } = await import(pathToFileURL(`${dir}/pyodide.mjs`).href);
const py = await loadPyodide({ indexURL: `${dir}/`, stdout: () => {}, stderr: () => {} });
await py.loadPackage(["micropip", "sympy"]);
const name = basename(wheel);
py.FS.writeFile(`/tmp/${name}`, readFileSync(wheel));
const out = await py.runPythonAsync(`
import json, micropip
await micropip.install("emfs:/tmp/${name}", deps=False)
import ktheory, sympy as sp
x = sp.Symbol("x", real=True)
result = {"version": ktheory.__version__, "file": ktheory.__file__,
          "sympy": str(sp.integrate(sp.exp(-x**2), (x, -sp.oo, sp.oo)))}
try:
    import ktheory.svm
    result["svm"] = "imported"
except ModuleNotFoundError as e:
    result["svm"] = f"ModuleNotFoundError: {e.name}"
json.dumps(result)
`);
console.log(out);
