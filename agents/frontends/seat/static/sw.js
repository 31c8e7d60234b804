// kocka web's service worker: keeps the page's own files (the page, its script, style,
// icons and messages) so that the page opens even while the server is away, and then says
// in the player's language that the seat is not answering (app.js retries). Every file is
// asked from the server first, so an update shows at once; the cache is only the fallback.
// The seat's answers (POST /: hints, rules, numbers) never pass through here: they always
// come from the server.
const CACHE = "kocka-page-1";
const PAGE_FILES = ["/static/app.js", "/static/style.css", "/static/icon.svg", "/static/icon-192.png",
                    "/static/icon-512.png", "/manifest.webmanifest",
                    "/i18n/en.json", "/i18n/hu.json", "/i18n/pl.json", "/i18n/sk.json"];

// GET / answers a program with the seat's hello; the page itself needs Accept: text/html
const pageRequest = () => new Request("/", { headers: { Accept: "text/html" } });

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    await cache.addAll([pageRequest(), ...PAGE_FILES]);
    await self.skipWaiting();
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) if (name !== CACHE) await caches.delete(name);
    await self.clients.claim();
  })());
});

function ownFile(request) {
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return null;
  if (request.mode === "navigate" && url.pathname === "/") return "/";  // the page, whatever its query
  if (PAGE_FILES.includes(url.pathname)) return url.pathname;
  return null;
}

self.addEventListener("fetch", (event) => {
  const key = ownFile(event.request);
  if (key === null) return;  // the seat's requests and anything else: straight to the network
  event.respondWith((async () => {
    const cache = await caches.open(CACHE);
    try {
      const response = await fetch(event.request);
      if (response.ok) await cache.put(key === "/" ? pageRequest() : key, response.clone());
      return response;
    } catch (err) {
      const kept = await cache.match(key === "/" ? pageRequest() : key);
      if (kept) return kept;
      throw err;
    }
  })());
});
