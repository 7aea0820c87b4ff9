// A very small virtual DOM: h() describes the screen, patch() brings the page to it.
// Nodes are matched by position (and by `key` when given), so that inputs keep focus and caret; a child
// left out (null, false) holds its place as an empty text node, so that its coming and going does not make
// the elements after it new ones (a tap on one of them between press and release would be lost).

const SVG_NS = "http://www.w3.org/2000/svg";
const PROPERTIES = new Set(["value", "checked", "disabled", "selected"]);

/** A node: h("button", {class: "x", onclick}, "text", [children...]); `style` is CSS text or an object of CSS
 * properties, set through the CSSOM. */
export function h(tag, props, ...children) {
  const flat = [];
  const add = (c) => {
    if (c === null || c === undefined || c === false || c === true) flat.push({ text: "" });
    else if (Array.isArray(c)) c.forEach(add);
    else if (typeof c === "object") flat.push(c);
    else flat.push({ text: String(c) });
  };
  add(children);
  return { tag, props: props || {}, children: flat };
}

function setStyle(el, value, old) {
  // Through the element's CSSOM, never a style attribute: the page's Content-Security-Policy forbids those.
  if (typeof value === "string" || typeof old === "string") {
    if (value !== old) el.style.cssText = typeof value === "string" ? value : "";
    if (typeof value === "string") return;
    old = null;
  }
  const now = value || {};
  for (const prop of Object.keys(old || {})) if (!(prop in now)) el.style.removeProperty(prop);
  for (const [prop, v] of Object.entries(now)) if (!old || old[prop] !== v) el.style.setProperty(prop, String(v));
}

function setProp(el, name, value, old) {
  if (name === "key" || name === "html") return;
  if (name === "style") {
    setStyle(el, value, old);
    return;
  }
  if (name.startsWith("on")) {
    el[name.toLowerCase()] = value || null;
    return;
  }
  if (PROPERTIES.has(name)) {
    if (name === "value") {
      const text = value === null || value === undefined ? "" : String(value);
      if (el.value !== text) el.value = text;
    } else if (el[name] !== Boolean(value)) {
      el[name] = Boolean(value);
    }
    if (name === "disabled") {
      if (value) el.setAttribute("disabled", "");
      else el.removeAttribute("disabled");
    }
    return;
  }
  if (value === old) return;
  if (value === null || value === undefined || value === false) el.removeAttribute(name);
  else el.setAttribute(name, value === true ? "" : String(value));
}

function create(node, svg) {
  if (node.text !== undefined) {
    node.el = document.createTextNode(node.text);
    return node.el;
  }
  const inSvg = svg || node.tag === "svg";
  const el = inSvg ? document.createElementNS(SVG_NS, node.tag) : document.createElement(node.tag);
  for (const [name, value] of Object.entries(node.props)) setProp(el, name, value, undefined);
  if (node.props.html !== undefined) el.innerHTML = node.props.html;
  else for (const child of node.children) el.appendChild(create(child, inSvg));
  node.el = el;
  return el;
}

function same(a, b) {
  if (a.text !== undefined || b.text !== undefined) return a.text !== undefined && b.text !== undefined;
  return a.tag === b.tag && a.props.key === b.props.key && (a.props.html === undefined) === (b.props.html === undefined);
}

function update(parent, node, old, svg) {
  if (!same(node, old)) {
    const el = create(node, svg);
    parent.replaceChild(el, old.el);
    return;
  }
  const el = old.el;
  node.el = el;
  if (node.text !== undefined) {
    if (node.text !== old.text) el.nodeValue = node.text;
    return;
  }
  const inSvg = svg || node.tag === "svg";
  for (const name of Object.keys(old.props)) {
    if (!(name in node.props)) setProp(el, name, null, old.props[name]);
  }
  for (const [name, value] of Object.entries(node.props)) setProp(el, name, value, old.props[name]);
  if (node.props.html !== undefined) {
    if (node.props.html !== old.props.html) el.innerHTML = node.props.html;
    return;
  }
  const oldKids = old.children, newKids = node.children;
  const common = Math.min(oldKids.length, newKids.length);
  for (let i = 0; i < common; i++) update(el, newKids[i], oldKids[i], inSvg);
  for (let i = oldKids.length - 1; i >= common; i--) el.removeChild(oldKids[i].el);
  for (let i = common; i < newKids.length; i++) el.appendChild(create(newKids[i], inSvg));
}

/** Make the container show `node`; `old` is what patch returned the last time (or null). */
export function patch(container, node, old) {
  if (old === null || old === undefined) {
    container.replaceChildren(create(node, false));
  } else {
    update(container, node, old, false);
  }
  return node;
}
