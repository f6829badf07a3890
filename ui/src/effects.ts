// Preact runs effects after the next animation frame; React runs them before the next input at
// the latest. TanStack Query hands a form's fields to its mutation, and a list's page to its
// query, in an effect: a click within the frame after typing sent the old fields (seen in the
// bench: the demo account's "Use", then "Sign in" at once, sent empty ones). Effects run right
// after the render instead, before any other input can arrive. Imported first by the page and by
// the tests' setup, so both run alike.
import { options } from "preact";

options.requestAnimationFrame = (callback) => queueMicrotask(callback);
