// Runs under the gateway's same-origin content security policy: no inline script, no eval.
document.getElementById('when').textContent = `Rendered at ${new Date().toLocaleString()}.`;
