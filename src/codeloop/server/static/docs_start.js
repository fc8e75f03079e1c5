// Swagger UI for the server's own /openapi.json. A file of its own: the docs page runs
// under the web UI's CSP, which allows no inline script. No validator badge (it loads an
// image from another site).
"use strict";
window.ui = window.SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  validatorUrl: null,
  presets: [window.SwaggerUIBundle.presets.apis],
  layout: "BaseLayout",
});
