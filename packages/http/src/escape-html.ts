// `escapeHtml` lives in @fw/core (print views need it without the Koa glue); @fw/http keeps
// exporting it for the packages that take it from here.
export { escapeHtml } from '@fw/core';
