/* specdec-live.js: the book's five headline explorers, live in the HTML book.
 *
 * The book's own code (no library, no network). Loaded on every page
 * (_config.yml, html_js_files); it finds each explorer snapshot that
 * specdec.widgets marked `specdec-live`, reads its `data-config` (controls,
 * ranges, defaults and every constant it needs) and replaces the static
 * snapshot with real controls, the same read-out numbers specdec computes,
 * and an SVG chart like the kernel figure. The formulas below are a port of
 * specdec's (acceptance, economics, request, checklist, literature), kept in
 * step with it by tests/test_live_explorers.py, which compares every
 * read-out value with specdec in Python at every control's minimum and maximum and
 * at 60 random settings per explorer. Settings the model forbids (a verification pass
 * faster than a plain step, a plain step longer than its TPOT) show specdec's warning
 * instead of a read-out, in the same words (specdec.widgets._domain).
 * Read-out cells carry data-key / data-value (full precision).
 */
(function () {
  "use strict";

  // ------------------------------------------------------------------ Python's format()
  // Python rounds the exact binary value half to even; JavaScript's toFixed rounds ties up.
  // digitsOf gives the exact decimal digits (101 significant, exact for the values shown here).
  function digitsOf(x) {
    var s = Math.abs(x).toExponential(100).split("e");
    return { digits: s[0].replace(".", ""), exp: parseInt(s[1], 10) };
  }

  // Round |x| to n significant digits, half to even: {head: n digits, exp: exponent of the first}.
  function roundSig(x, n) {
    var d = digitsOf(x), digits = d.digits, exp = d.exp;
    if (n <= 0) {
      var up0 = digits[0] > "5" || (digits[0] === "5" && /[1-9]/.test(digits.slice(1)));
      return up0 ? { head: "1", exp: exp + 1, zero: false } : { head: "0", exp: exp + 1, zero: true };
    }
    var head = digits.slice(0, n), tail = digits.slice(n);
    var up = tail.length > 0 && (tail[0] > "5" || (tail[0] === "5" &&
      (/[1-9]/.test(tail.slice(1)) || parseInt(head[n - 1], 10) % 2 === 1)));
    if (up) {
      var chars = head.split(""), i = n - 1;
      while (i >= 0) {
        if (chars[i] === "9") { chars[i] = "0"; i -= 1; } else { chars[i] = String(parseInt(chars[i], 10) + 1); break; }
      }
      if (i < 0) { chars.unshift("1"); chars.pop(); exp += 1; }
      head = chars.join("");
    }
    return { head: head, exp: exp, zero: false };
  }

  function groupThousands(intPart) {
    return intPart.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  }

  function fixed(x, decimals, comma) {
    var r = roundSig(x, digitsOf(x).exp + 1 + decimals), intPart, frac;
    if (x === 0 || r.zero) {
      intPart = "0"; frac = "0".repeat(decimals);
    } else {
      var all = r.head, point = r.exp + 1;           // digits before the decimal point
      if (point <= 0) { all = "0".repeat(1 - point) + all; point = 1; }
      all = all + "0".repeat(Math.max(0, point + decimals - all.length));
      intPart = all.slice(0, point); frac = all.slice(point, point + decimals);
    }
    if (comma) { intPart = groupThousands(intPart); }
    return decimals > 0 ? intPart + "." + frac : intPart;
  }

  function general(x, precision) {
    var p = precision === 0 ? 1 : precision;
    if (x === 0) { return "0"; }
    var r = roundSig(x, p), exp = r.exp, out;
    if (exp >= -4 && exp < p) {
      out = fixed(x, p - 1 - exp, false);
      if (out.indexOf(".") >= 0) { out = out.replace(/0+$/, "").replace(/\.$/, ""); }
      return out;
    }
    var mant = r.head[0] + (r.head.length > 1 ? "." + r.head.slice(1) : "");
    if (mant.indexOf(".") >= 0) { mant = mant.replace(/0+$/, "").replace(/\.$/, ""); }
    var e = Math.abs(exp);
    return mant + "e" + (exp < 0 ? "-" : "+") + (e < 10 ? "0" + e : String(e));
  }

  // format(x, spec) for the specs the read-outs use: [,][.N](f|g|%) and d.
  function pyFormat(x, spec) {
    if (spec === "d") { return String(Math.round(x)); }
    var m = /^(,)?(?:\.(\d+))?([fg%])$/.exec(spec);
    if (!m) { throw new Error("format spec not supported: " + spec); }
    var comma = !!m[1], prec = m[2] === undefined ? 6 : parseInt(m[2], 10), type = m[3];
    if (isNaN(x)) { return type === "%" ? "nan%" : "nan"; }
    if (!isFinite(x)) { return (x < 0 ? "-" : "") + "inf" + (type === "%" ? "%" : ""); }
    var sign = x < 0 || (x === 0 && 1 / x < 0) ? "-" : "";
    var a = Math.abs(x), body;
    if (type === "f") { body = fixed(a, prec, comma); }
    else if (type === "%") { body = fixed(a * 100, prec, comma) + "%"; }
    else { body = general(a, prec); }
    return sign + body;
  }

  // ------------------------------------------------------------------ specdec's formulas (ported)
  // acceptance.expected_tokens: expm1((k + 1) log1p(alpha - 1)) / (alpha - 1), k + 1 at alpha = 1.
  function expectedTokens(alpha, k) {
    var m = alpha - 1.0;
    if (m === 0) { return k + 1.0; }
    return Math.expm1(Math.log1p(m) * (k + 1.0)) / m;
  }

  // acceptance.accepted_tokens_pmf: P(N = n) = alpha^n (1 - alpha), n < k; P(N = k) = alpha^k.
  function acceptedTokensPmf(alpha, k) {
    var out = [];
    for (var n = 0; n <= k; n++) {
      var power = Math.pow(alpha, n);
      out.push(n === k ? power : power * (1.0 - alpha));
    }
    return out;
  }

  // acceptance._mean_accepted_and_slope: g(x) = x + ... + x^k and an approximate g'(x).
  function meanAcceptedAndSlope(x, k) {
    var b = 1.0 - x;
    var oneMinusXk = -Math.expm1(k * Math.log1p(-b));
    var g = b === 0 ? k : x * oneMinusXk / b;
    var kb = k * b;
    var exact = (oneMinusXk - kb * (1.0 - oneMinusXk)) / (b * b);
    var series = 0.5 * k * (k + 1.0) * (1.0 - kb * (k - 1.0) / (1.5 * (k + 1.0)));
    var slope = kb > 1e-5 ? exact : series;
    return [g, isNaN(slope) ? 1.0 : Math.max(slope, 1.0)];
  }

  // acceptance._solve_mean_accepted: g(x) = d on [0, 1], Newton safeguarded by its bracket.
  function solveMeanAccepted(d, k) {
    if (!(d > 0 && d < k)) { return d >= k ? 1.0 : 0.0; }
    if (k === 1) { return d; }
    var lo = Math.max(d / (1.0 + d), d / k), hi = Math.min(1.0, d), x = lo;
    for (var i = 0; i < 200; i++) {
      var gs = meanAcceptedAndSlope(x, k), f = gs[0] - d;
      if (f < 0) { lo = Math.max(lo, x); }
      if (f > 0) { hi = Math.min(hi, x); }
      var step = f / gs[1], next = x - step;
      var converged = f === 0 || Math.abs(step) <= 4e-16 * x;
      if ((next < lo || next > hi) && !converged) { next = 0.5 * (lo + hi); }
      x = next;
      if (converged || hi - lo <= 4e-16 * hi) { break; }
    }
    return Math.min(Math.max(x, 0.0), 1.0);
  }

  // acceptance.alpha_for_expected_tokens: the inverse of E[L].
  function alphaForExpectedTokens(el, k) { return solveMeanAccepted(el - 1.0, k); }

  // economics.break_even_alpha: E[L](alpha) = k c_d + c_v; 0 when the round costs <= 1 step, NaN from k + 1.
  function breakEvenAlpha(k, cDraft, cVerify) {
    var cost = k * cDraft + cVerify;
    if (cost <= 1.0) { return 0.0; }
    if (cost >= k + 1.0) { return NaN; }
    return alphaForExpectedTokens(cost, k);
  }

  function roundCost(k, cDraft, cVerify) { return k * cDraft + cVerify; }
  function speedupFromCosts(alpha, k, cDraft, cVerify) { return expectedTokens(alpha, k) / (k * cDraft + cVerify); }
  function roundTime(tDraft, tVerify, tOverhead) { return tDraft + tVerify + tOverhead; }
  function speedup(alpha, k, t0, tDraft, tVerify, tOverhead) {
    return t0 * expectedTokens(alpha, k) / (tDraft + tVerify + tOverhead);
  }
  function costsFromTimes(k, t0, tDraft, tVerify, tOverhead) { return [tDraft / (k * t0), (tVerify + tOverhead) / t0]; }
  function quickEstimate(alpha, k, t0, tDraft, tVerify) {
    return expectedTokens(alpha, k) / (1.0 + tDraft / t0 + tVerify / t0);
  }
  // economics.round_times_vs_k: T_draft proportional to k, T_verify + slope (k - k_ref), never below the floor.
  function roundTimesVsK(k, kRef, tDraft, tVerify, slope, floor) {
    var tv = tVerify + slope * (k - kRef);
    if (floor !== undefined && floor !== null) { tv = Math.max(tv, floor); }
    return [tDraft / kRef * k, tv];
  }
  // economics.optimal_k: the first k in 1..kMax with the largest E[L] / (k c_d + c_v(k)).
  function optimalK(alpha, cDraft, cVerifyOfK) {
    var best = 1, bestValue = -Infinity;
    for (var k = 1; k <= cVerifyOfK.length; k++) {
      var s = expectedTokens(alpha, k) / (k * cDraft + cVerifyOfK[k - 1]);
      if (s > bestValue) { best = k; bestValue = s; }
    }
    return best;
  }
  // request.decode_time, request_speedup, break_even_output_length.
  function decodeTime(tpot, n) { return tpot * (n - 1.0); }
  function requestSpeedup(n, s, tpot, tSetup, ttft) {
    var d = tpot * (n - 1.0), num = ttft + d, den = ttft + tSetup + d / s;
    return den > 0 ? num / den : 1.0;
  }
  function breakEvenOutputLength(tSetup, tpot, s) {
    var saving = 1.0 - 1.0 / s;
    if (!(saving > 0)) { return Infinity; }
    return tSetup === 0 ? 1.0 : 1.0 + tSetup / (tpot * saving);
  }

  // checklist._fmt
  function fmt(x) {
    if (!isFinite(x) && !isNaN(x)) { return "infinite"; }
    if (Math.abs(x) >= 1000) { return pyFormat(x, ",.0f"); }
    return pyFormat(x, ".3g");
  }

  // checklist.assess, with the thresholds of the configuration.
  function assess(w, th, worthIt) {
    var u = w.time_unit, g = function (x) { return pyFormat(x, "g"); };
    var dr = th.decode_ratio, mb = th.max_batch, ma = th.min_alpha, df = th.draft_fraction, mo = th.min_output_tokens;
    var dec = decodeTime(w.tpot, w.mean_output_tokens), ratio = dec / w.ttft;
    var cDraft = costsFromTimes(w.k, w.t0, w.t_draft, w.t_verify, w.t_overhead)[0];
    var checks = [
      { key: "decode-bottleneck", passed: ratio >= dr,
        reason: "decode takes " + fmt(dec) + " " + u + " (" + fmt(w.mean_output_tokens - 1) + " tokens x TPOT " +
          fmt(w.tpot) + " " + u + "), " + fmt(ratio) + " x the TTFT of " + fmt(w.ttft) + " " + u },
      { key: "low-batch", passed: w.batch < mb,
        reason: "batch " + w.batch + " " + (w.batch < mb ? "<" : ">=") + " " + mb },
      { key: "acceptance", passed: w.alpha > ma,
        reason: "alpha = " + pyFormat(w.alpha, ".3g") + " " + (w.alpha > ma ? ">" : "<=") + " " + g(ma) },
      { key: "cheap-draft", passed: w.t_draft < df * w.t0,
        reason: "drafting " + w.k + " tokens takes " + fmt(w.t_draft) + " " + u + " = " + fmt(w.t_draft / w.t0) +
          " x T0 (" + fmt(cDraft) + " x T0 per draft step)" },
      { key: "long-output", passed: w.mean_output_tokens > mo,
        reason: fmt(w.mean_output_tokens) + " tokens " + (w.mean_output_tokens > mo ? ">" : "<=") + " " + g(mo) }
    ];
    var el = expectedTokens(w.alpha, w.k);
    var s = speedup(w.alpha, w.k, w.t0, w.t_draft, w.t_verify, w.t_overhead);
    var q = quickEstimate(w.alpha, w.k, w.t0, w.t_draft, w.t_verify);
    var req = requestSpeedup(w.mean_output_tokens, s, w.tpot, w.t_setup, w.ttft);
    var nStar = breakEvenOutputLength(w.t_setup, w.tpot, s);
    var failed = checks.filter(function (c) { return !c.passed; }).map(function (c) { return c.key; });
    var s2 = pyFormat(s, ".2f"), verdict;
    if (s < 1.0) { verdict = "do not speculate: it would be slower (speedup " + s2 + ")"; }
    else if (s < worthIt) { verdict = "probably not worth it: speedup " + s2 + " is below the " + g(worthIt) + " rule"; }
    else if (req < 1.0) {
      verdict = "do not speculate: the per-token speedup " + s2 + " does not pay back the setup cost on requests this short";
    } else if (failed.length === 0) { verdict = "speculate: every check passes and the speedup is " + s2; }
    else {
      verdict = "worth a benchmark: speedup " + s2 + " clears the " + g(worthIt) + " rule, but check(s) " +
        failed.join(", ") + " fail";
    }
    return { checks: checks, expected_tokens: el, speedup: s, quick_estimate: q, request_speedup: req,
      break_even_output_length: nStar, verdict: verdict };
  }

  // ------------------------------------------------------------------ the model's domain (specdec.widgets._domain)
  // Each returns null inside the model, else the warning the explorer shows instead of its read-out.
  function number(x) { return pyFormat(x, ".4g"); }

  function verifyBelowStep(tVerify, t0, k, unit, verify, step) {
    verify = verify || "T_verify"; step = step || "T0";
    if (tVerify >= t0) { return null; }
    return verify + " (" + number(tVerify) + " " + unit + ") is below " + step + " (" + number(t0) + " " + unit +
      "): verification is one target pass over k + 1 = " + (k + 1) + " positions, and no pass is faster than a " +
      "plain step over one. Set " + verify + " to at least " + step + ".";
  }

  function verifyCostBelowOne(cVerify) {
    if (cVerify >= 1.0) { return null; }
    return "c_verify = " + pyFormat(cVerify, ".3f") + " is below 1: the verification pass is a target forward " +
      "pass (over k + 1 positions), so it costs at least one plain step. Set c_verify to 1 or more.";
  }

  function stepAboveTpot(t0, tpot, tolerance, unit, step, tpotName) {
    step = step || "T0"; tpotName = tpotName || "TPOT";
    if (t0 <= tpot * (1.0 + tolerance)) { return null; }
    return step + " (" + number(t0) + " " + unit + ") is longer than " + tpotName + " (" + number(tpot) + " " + unit +
      ") by more than " + pyFormat(tolerance, ".0%") + ": a plain decode step cannot take longer than the token it " +
      "produces (" + tpotName + ", measured without speculation, is where " + step + " comes from). Set " + step +
      " no higher than " + tpotName + ".";
  }

  function verifyFloorNote(tVerify, t0, k, slope) {
    if (slope <= 0 || tVerify < t0) { return null; }
    var last = 0;
    for (var j = 1; j < k; j++) { if (tVerify + slope * (j - k) < t0) { last = j; } }
    if (last === 0) { return null; }
    var where = last === 1 ? "k = 1" : "k = 1 to " + last;
    return "at " + where + " this slope would make verification cheaper than a plain step; " +
      "the curve and the best k hold T_verify at T0 there";
  }

  function present(list) { return list.filter(function (x) { return x !== null; }); }

  // ------------------------------------------------------------------ SVG charts
  var SVGNS = "http://www.w3.org/2000/svg";

  function esc(text) {
    return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  }

  function niceTicks(lo, hi, target, integer) {
    var span = hi - lo, raw = span / (target || 5), mag = Math.pow(10, Math.floor(Math.log10(raw))), step = mag;
    (integer ? [1, 2, 5, 10] : [1, 2, 2.5, 5, 10]).some(function (m) { step = m * mag; return step >= raw; });
    if (integer) { step = Math.max(1, Math.round(step)); }
    var ticks = [], first = Math.ceil(lo / step - 1e-9) * step;
    for (var t = first; t <= hi + step * 1e-9; t += step) { ticks.push(Math.round(t / step) * step); }
    return ticks;
  }

  function tickText(t) {
    var s = String(Math.round(t * 1e6) / 1e6);
    return s;
  }

  // One panel: data coordinates -> SVG coordinates, and SVG fragments appended to parts.
  function Panel(parts, box, xlim, ylim, opts) {
    this.parts = parts; this.box = box; this.xlim = xlim; this.ylim = ylim; this.opts = opts || {};
    var self = this;
    this.sx = function (x) { return box.x + (x - xlim[0]) / (xlim[1] - xlim[0]) * box.w; };
    this.sy = function (y) { return box.y + box.h - (y - ylim[0]) / (ylim[1] - ylim[0]) * box.h; };
    var o = this.opts;
    parts.push('<defs><clipPath id="' + o.clip + '"><rect x="' + box.x + '" y="' + box.y + '" width="' + box.w +
      '" height="' + box.h + '"/></clipPath></defs>');
    var xt = o.xticks || niceTicks(xlim[0], xlim[1], 7, o.xinteger), yt = o.yticks || niceTicks(ylim[0], ylim[1], 5);
    yt.forEach(function (t) {
      if (t < ylim[0] - 1e-12 || t > ylim[1] + 1e-12) { return; }
      var y = self.sy(t).toFixed(1);
      parts.push('<line x1="' + box.x + '" x2="' + (box.x + box.w) + '" y1="' + y + '" y2="' + y +
        '" stroke="#000" stroke-opacity="0.1"/>');
      parts.push('<text x="' + (box.x - 5) + '" y="' + y + '" text-anchor="end" dominant-baseline="middle">' +
        tickText(t) + "</text>");
    });
    xt.forEach(function (t) {
      if (t < xlim[0] - 1e-12 || t > xlim[1] + 1e-12) { return; }
      var x = self.sx(t).toFixed(1);
      if (o.xgrid !== false) {
        parts.push('<line x1="' + x + '" x2="' + x + '" y1="' + box.y + '" y2="' + (box.y + box.h) +
          '" stroke="#000" stroke-opacity="0.1"/>');
      }
      parts.push('<text x="' + x + '" y="' + (box.y + box.h + 15) + '" text-anchor="middle">' + tickText(t) + "</text>");
    });
    parts.push('<rect x="' + box.x + '" y="' + box.y + '" width="' + box.w + '" height="' + box.h +
      '" fill="none" stroke="#333" stroke-width="0.8"/>');
    if (o.xlabel) {
      parts.push('<text x="' + (box.x + box.w / 2) + '" y="' + (box.y + box.h + 32) + '" text-anchor="middle">' +
        esc(o.xlabel) + "</text>");
    }
    if (o.ylabel) {
      var cx = box.x - 38, cy = box.y + box.h / 2;
      parts.push('<text transform="translate(' + cx + "," + cy + ') rotate(-90)" text-anchor="middle">' +
        esc(o.ylabel) + "</text>");
    }
    if (o.title) {
      parts.push('<text x="' + (box.x + box.w / 2) + '" y="' + (box.y - 8) + '" text-anchor="middle" font-size="12.5">' +
        esc(o.title) + "</text>");
    }
  }

  Panel.prototype.path = function (xs, ys, style) {
    var self = this, d = "", pen = false;
    for (var i = 0; i < xs.length; i++) {
      if (!isFinite(ys[i])) { pen = false; continue; }
      d += (pen ? "L" : "M") + this.sx(xs[i]).toFixed(2) + "," + this.sy(ys[i]).toFixed(2);
      pen = true;
    }
    var s = style || {};
    this.parts.push('<path d="' + d + '" fill="none" stroke="' + (s.color || "#000") + '" stroke-width="' +
      (s.width || 1.5) + '"' + (s.dash ? ' stroke-dasharray="' + s.dash + '"' : "") + ' clip-path="url(#' +
      this.opts.clip + ')"/>');
    if (s.marker) {
      for (var j = 0; j < xs.length; j++) {
        if (isFinite(ys[j])) { self.circle(xs[j], ys[j], s.marker, { fill: s.color }); }
      }
    }
  };

  Panel.prototype.circle = function (x, y, r, style) {
    var s = style || {};
    this.parts.push('<circle cx="' + this.sx(x).toFixed(2) + '" cy="' + this.sy(y).toFixed(2) + '" r="' + r +
      '" fill="' + (s.fill || "none") + '" stroke="' + (s.stroke || s.fill || "none") + '" stroke-width="' +
      (s.width || 1) + '"/>');
  };

  Panel.prototype.rect = function (x0, y0, x1, y1, style) {
    var s = style || {};
    var xa = this.sx(Math.min(x0, x1)), xb = this.sx(Math.max(x0, x1)), ya = this.sy(Math.max(y0, y1)),
      yb = this.sy(Math.min(y0, y1));
    this.parts.push('<rect x="' + xa.toFixed(2) + '" y="' + ya.toFixed(2) + '" width="' + (xb - xa).toFixed(2) +
      '" height="' + (yb - ya).toFixed(2) + '" fill="' + (s.fill || "#999") + '"' +
      (s.opacity !== undefined ? ' fill-opacity="' + s.opacity + '"' : "") +
      (s.stroke ? ' stroke="' + s.stroke + '"' : "") + "/>");
  };

  Panel.prototype.area = function (xs, lower, upper, style) {
    var d = "";
    for (var i = 0; i < xs.length; i++) { d += (i ? "L" : "M") + this.sx(xs[i]).toFixed(2) + "," + this.sy(upper[i]).toFixed(2); }
    for (var j = xs.length - 1; j >= 0; j--) { d += "L" + this.sx(xs[j]).toFixed(2) + "," + this.sy(lower[j]).toFixed(2); }
    this.parts.push('<path d="' + d + 'Z" fill="' + style.fill + '" fill-opacity="' + style.opacity + '" stroke="none"/>');
  };

  Panel.prototype.text = function (x, y, text, style) {
    var s = style || {};
    this.parts.push('<text x="' + (this.sx(x) + (s.dx || 0)).toFixed(2) + '" y="' + (this.sy(y) + (s.dy || 0)).toFixed(2) +
      '" text-anchor="' + (s.anchor || "start") + '" fill="' + (s.color || "#222") + '"' +
      (s.baseline ? ' dominant-baseline="' + s.baseline + '"' : "") + ">" + esc(text) + "</text>");
  };

  // A legend: items [{label, color, dash, marker, box}] from a corner of the panel.
  Panel.prototype.legend = function (items, corner) {
    var b = this.box, lineH = 16, x = corner.indexOf("right") >= 0 ? b.x + b.w - 200 : b.x + 8;
    var y = corner.indexOf("lower") >= 0 ? b.y + b.h - 8 - lineH * (items.length - 1) : b.y + 14;
    if (corner.indexOf("right") >= 0) { x = b.x + b.w - 8 - 7.2 * Math.max.apply(null, items.map(function (i) { return i.label.length; })) - 26; }
    var parts = this.parts;
    items.forEach(function (it, i) {
      var yy = y + i * lineH;
      if (it.box) {
        parts.push('<rect x="' + x + '" y="' + (yy - 5) + '" width="18" height="10" fill="' + it.color + '"' +
          (it.opacity !== undefined ? ' fill-opacity="' + it.opacity + '"' : "") + "/>");
      } else {
        parts.push('<line x1="' + x + '" x2="' + (x + 18) + '" y1="' + yy + '" y2="' + yy + '" stroke="' + it.color +
          '" stroke-width="' + (it.width || 1.8) + '"' + (it.dash ? ' stroke-dasharray="' + it.dash + '"' : "") + "/>");
      }
      parts.push('<text x="' + (x + 24) + '" y="' + yy + '" dominant-baseline="middle" font-size="11.5">' + esc(it.label) + "</text>");
    });
  };

  function svgOpen(width, height, label) {
    return '<svg xmlns="' + SVGNS + '" viewBox="0 0 ' + width + " " + height + '" width="100%" role="img" aria-label="' +
      esc(label) + '" style="max-width:' + width + 'px;display:block;font-family:sans-serif;font-size:12px;margin-top:0.4em">';
  }

  // "Nice" upper limits, as the kernel figures choose them.
  function niceTopStep(value, step) { return Math.max(step, Math.ceil(value / step - 1e-12) * step); }
  function niceTop125(value) {
    var exponent = Math.floor(Math.log10(value)), mants = [1, 1.5, 2, 3, 4, 5, 6, 8, 10];
    for (var i = 0; i < mants.length; i++) {
      if (mants[i] * Math.pow(10, exponent) >= value * (1 - 1e-12)) { return mants[i] * Math.pow(10, exponent); }
    }
    return Math.pow(10, exponent + 1);
  }
  function range(a, b) { var out = []; for (var i = a; i <= b; i++) { out.push(i); } return out; }
  function linspace(a, b, n) { var out = []; for (var i = 0; i < n; i++) { out.push(a + (b - a) * i / (n - 1)); } return out; }

  // ------------------------------------------------------------------ the five explorers
  var EXPLORERS = {};

  EXPLORERS["expected-tokens"] = {
    compute: function (s, c) {
      var a = s.alpha, k = s.k, tokens = expectedTokens(a, k), pmf = acceptedTokensPmf(a, k);
      return { alpha: a, k: k, expected_tokens: tokens, pmf: pmf, ceiling: k + 1, fraction_of_ceiling: tokens / (k + 1),
        p_all_accepted: pmf[k], next_draft_gain: expectedTokens(a, k + 1) - tokens };
    },
    rows: function (v) {
      return [
        ["expected_tokens", "expected tokens per round, E[L]", pyFormat(v.expected_tokens, ".4f"), v.expected_tokens],
        ["ceiling", "ceiling k + 1 (every draft accepted)", String(v.ceiling), v.ceiling],
        ["fraction_of_ceiling", "E[L] as a fraction of the ceiling", pyFormat(v.fraction_of_ceiling, ".1%"), v.fraction_of_ceiling],
        ["p_all_accepted", "P(all k drafts accepted) = alpha^k", pyFormat(v.p_all_accepted, ".4f"), v.p_all_accepted],
        ["next_draft_gain", "tokens gained by one more draft (k -> k+1)", pyFormat(v.next_draft_gain, ".4f"), v.next_draft_gain]
      ];
    },
    chart: function (v, c, colors) {
      var km = c.constants.k_max, k = v.k, parts = [];
      var label = "Left: bar chart of the distribution of L at alpha " + pyFormat(v.alpha, ".2f") + " and k " + k +
        "; the last bar, every draft accepted, has probability " + pyFormat(v.p_all_accepted, ".3f") +
        "; a dashed line marks E[L] = " + pyFormat(v.expected_tokens, ".2f") + ". Right: E[L] against k from 1 to " + km +
        " under the ceiling k + 1, k = " + k + " circled; one more draft adds " + pyFormat(v.next_draft_gain, ".3f") + " tokens.";
      var shown = k + 1 > 12 ? k + 1 : Math.max(k + 1, 6), top = niceTopStep(Math.max.apply(null, v.pmf) * 1.12, 0.25);
      var left = new Panel(parts, { x: 58, y: 26, w: 272, h: 220 }, [0.3, shown + 0.7], [0, top],
        { clip: c.id + "-l", xlabel: "tokens emitted in the round, L", ylabel: "probability", xgrid: false,
          xticks: shown <= 17 ? range(1, shown) : range(1, shown).filter(function (t) { return t % 2 === 1; }),
          title: "Distribution of L (alpha = " + pyFormat(v.alpha, "g") + ", k = " + k + ")" });
      v.pmf.forEach(function (p, i) {
        left.rect(i + 1 - 0.35, 0, i + 1 + 0.35, p, { fill: i === k ? colors.verify : colors.draft });
      });
      left.path([v.expected_tokens, v.expected_tokens], [0, top], { color: colors.accent, width: 1.5, dash: "5,3" });
      var onLeft = v.expected_tokens < (shown + 1) / 2;
      left.text(v.expected_tokens, top, " E[L] = " + pyFormat(v.expected_tokens, ".2f") + " ",
        { color: colors.accent, anchor: onLeft ? "start" : "end", dy: 14 });
      var ks = range(1, km), el = ks.map(function (kk) { return expectedTokens(v.alpha, kk); });
      var right = new Panel(parts, { x: 412, y: 26, w: 278, h: 220 }, [0.5, km + 0.5], [0, km + 1.5],
        { clip: c.id + "-r", xlabel: "draft tokens per round, k", ylabel: "E[L]", title: "E[L] against k (arrow: one more draft)",
          xinteger: true });
      right.path(ks, ks.map(function (kk) { return kk + 1; }), { color: colors.baseline, dash: "5,3", width: 1.2 });
      right.path(ks, el, { color: colors.target, marker: 2.6 });
      right.circle(k, v.expected_tokens, 6.5, { stroke: colors.accent, width: 2 });
      if (k < km) {
        var following = expectedTokens(v.alpha, k + 1);
        right.path([k, k + 1], [v.expected_tokens, following], { color: colors.accent, width: 1.5 });
        right.text(k + 1.2, following, "+" + pyFormat(following - v.expected_tokens, ".3f"), { color: colors.accent, dy: 12 });
      }
      right.legend([{ label: "ceiling k+1", color: colors.baseline, dash: "5,3" }, { label: "E[L]", color: colors.target }], "upper left");
      return svgOpen(700, 290, label) + parts.join("") + "</svg>";
    }
  };

  EXPLORERS.speedup = {
    compute: function (s, c) {
      var km = c.constants.k_max, a = s.alpha, k = s.k, t0 = s.t0, td = s.t_draft, tv = s.t_verify, to = s.t_overhead;
      var costs = costsFromTimes(k, t0, td, tv, to), ks = range(1, km), tds = [], tvs = [], floor = Math.min(t0, tv);
      ks.forEach(function (kk) { var r = roundTimesVsK(kk, k, td, tv, s.verify_slope, floor); tds.push(r[0]); tvs.push(r[1]); });
      var curve = ks.map(function (kk, i) { return speedup(a, kk, t0, tds[i], tvs[i], to); });
      var quick = ks.map(function (kk, i) { return quickEstimate(a, kk, t0, tds[i], tvs[i]); });
      var cvs = ks.map(function (kk, i) { return costsFromTimes(kk, t0, tds[i], tvs[i], to)[1]; });
      var best = optimalK(a, costs[0], cvs), here = speedup(a, k, t0, td, tv, to), bestSpeedup = curve[best - 1];
      if (bestSpeedup < here) { best = k; bestSpeedup = here; }   // the search includes k
      return { alpha: a, k: k, t0: t0, t_draft: td, t_verify: tv, t_overhead: to, verify_slope: s.verify_slope,
        expected_tokens: expectedTokens(a, k), t_round: roundTime(td, tv, to), speedup: here,
        c_draft: costs[0], c_verify: costs[1], speedup_from_costs: speedupFromCosts(a, k, costs[0], costs[1]),
        quick_estimate: quickEstimate(a, k, t0, td, tv), best_k: best, best_speedup: bestSpeedup,
        floor_note: verifyFloorNote(tv, t0, k, s.verify_slope), curve: curve, quick: quick, ks: ks };
    },
    domain: function (s) { return present([verifyBelowStep(s.t_verify, s.t0, s.k, "ms")]); },
    rows: function (v, c) {
      return [
        ["expected_tokens", "expected tokens per round, E[L]", pyFormat(v.expected_tokens, ".4f"), v.expected_tokens],
        ["t_round", "round time T_draft + T_verify + T_overhead", pyFormat(v.t_round, ".2f") + " ms", v.t_round],
        ["speedup", "speedup T0 E[L] / T_round", pyFormat(v.speedup, ".3f") + "x", v.speedup],
        ["c_draft", "c_draft = T_draft / (k T0), one draft step", pyFormat(v.c_draft, ".4f"), v.c_draft],
        ["c_verify", "c_verify = (T_verify + T_overhead) / T0", pyFormat(v.c_verify, ".4f"), v.c_verify],
        ["speedup_from_costs", "speedup E[L] / (k c_draft + c_verify)", pyFormat(v.speedup_from_costs, ".3f") + "x", v.speedup_from_costs],
        ["quick_estimate", "source's quick estimate", pyFormat(v.quick_estimate, ".3f") + "x", v.quick_estimate],
        ["best_k", "best k up to " + c.constants.k_max + " (T_draft proportional to k)", String(v.best_k), v.best_k],
        ["best_speedup", "speedup at the best k", pyFormat(v.best_speedup, ".3f") + "x", v.best_speedup]
      ].concat(v.floor_note ? [["floor_note", "note", v.floor_note, v.floor_note]] : []);
    },
    chart: function (v, c, colors) {
      var km = c.constants.k_max, k = v.k, t0 = v.t0, tokens = v.expected_tokens, parts = [];
      var label = "Top: one speculative round of " + pyFormat(v.t_round, ".2f") + " ms against " +
        pyFormat(t0 * tokens, ".2f") + " ms of plain decoding for the same " + pyFormat(tokens, ".2f") +
        " tokens: speedup " + pyFormat(v.speedup, ".2f") + "x. Bottom: speedup against k from 1 to " + km +
        ", the exact curve above the source's quick estimate; k = " + k + " circled, the best k = " + v.best_k +
        " starred at " + pyFormat(v.best_speedup, ".2f") + "x.";
      var xTop = niceTop125(Math.max(t0 * (k + 1), t0 * tokens, v.t_round) * 1.45);
      var top = new Panel(parts, { x: 150, y: 26, w: 540, h: 170 }, [0, xTop], [-0.6, 2.9],
        { clip: c.id + "-t", xlabel: "time (ms)", yticks: [], xgrid: true,
          title: "One round vs plain decoding: speedup = " + pyFormat(t0 * tokens, ".2f") + " / " +
            pyFormat(v.t_round, ".2f") + " = " + pyFormat(v.speedup, ".2f") + "x" });
      var edge = 0;
      [[v.t_draft, colors.draft], [v.t_verify, colors.verify], [v.t_overhead, colors.overhead]].forEach(function (p) {
        top.rect(edge, 2 - 0.3, edge + p[0], 2 + 0.3, { fill: p[1], stroke: "#fff" }); edge += p[0];
      });
      var whole = Math.floor(tokens);
      for (var i = 0; i < whole; i++) { top.rect(t0 * i, 0.7, t0 * (i + 1), 1.3, { fill: colors.target, stroke: "#fff" }); }
      if (tokens > whole) { top.rect(t0 * whole, 0.7, t0 * tokens, 1.3, { fill: colors.target, opacity: 0.55, stroke: "#fff" }); }
      for (var j = 0; j <= k; j++) { top.rect(t0 * j, -0.3, t0 * (j + 1), 0.3, { fill: colors.neutral, stroke: "#fff" }); }
      top.text(v.t_round, 2, "  " + pyFormat(v.t_round, ".2f") + " ms -> " + pyFormat(tokens, ".2f") + " tokens", { baseline: "middle" });
      top.text(t0 * tokens, 1, "  " + pyFormat(t0 * tokens, ".2f") + " ms for " + pyFormat(tokens, ".2f") + " tokens", { baseline: "middle" });
      top.text(t0 * (k + 1), 0, "  " + pyFormat(t0 * (k + 1), ".2f") + " ms for " + (k + 1) + " tokens", { baseline: "middle" });
      [["speculative round", 2], ["plain, same E[L] tokens", 1], ["plain, k + 1 tokens", 0]].forEach(function (r) {
        parts.push('<text x="' + 144 + '" y="' + top.sy(r[1]).toFixed(1) + '" text-anchor="end" dominant-baseline="middle">' + r[0] + "</text>");
      });
      top.legend([{ label: "draft", color: colors.draft, box: true }, { label: "verify", color: colors.verify, box: true },
        { label: "overhead", color: colors.overhead, box: true }, { label: "plain target step (T0)", color: colors.target, box: true }],
        "upper right");
      var yTop = Math.max(1.5, niceTop125(Math.max.apply(null, v.curve) * 1.25));
      var bottom = new Panel(parts, { x: 70, y: 262, w: 620, h: 210 }, [0.5, km + 0.5], [0, yTop],
        { clip: c.id + "-b", xlabel: "draft tokens per round, k", ylabel: "speedup", xinteger: true,
          title: "Speedup vs k (T_verify " + (v.verify_slope === 0 ? "constant in k" : "+" + pyFormat(v.verify_slope, "g") + " ms per extra draft") + ")" });
      bottom.path([0.5, km + 0.5], [1, 1], { color: colors.baseline, width: 1, dash: "2,3" });
      bottom.text(km, 1, "break-even ", { anchor: "end", dy: -4, color: colors.baseline });
      bottom.path(v.ks, v.curve, { color: colors.target, marker: 2.6 });
      bottom.path(v.ks, v.quick, { color: colors.neutral, dash: "5,3" });
      bottom.circle(k, v.curve[k - 1], 6.5, { stroke: colors.accent, width: 2 });
      var bx = bottom.sx(v.best_k), by = bottom.sy(v.best_speedup);
      parts.push('<text x="' + bx.toFixed(1) + '" y="' + (by + 5).toFixed(1) + '" text-anchor="middle" font-size="17" fill="' + colors.accent + '">\u2605</text>');
      bottom.legend([{ label: "speedup (exact)", color: colors.target }, { label: "source's quick estimate", color: colors.neutral, dash: "5,3" }],
        "lower right");
      return svgOpen(700, 512, label) + parts.join("") + "</svg>";
    }
  };

  EXPLORERS.checklist = {
    compute: function (s, c) {
      var w = {}, k;
      for (k in s) { if (Object.prototype.hasOwnProperty.call(s, k)) { w[k] = s[k]; } }
      w.time_unit = c.constants.time_unit;
      return assess(w, c.constants.thresholds, c.constants.worth_it);
    },
    domain: function (s, c) {
      var u = c.constants.time_unit;
      return present([stepAboveTpot(s.t0, s.tpot, c.constants.t0_tolerance, u), verifyBelowStep(s.t_verify, s.t0, s.k, u)]);
    },
    rows: function (v, c) {
      var questions = { "decode-bottleneck": "Is decode the bottleneck?", "low-batch": "Is the batch small?",
        "acceptance": "Is the acceptance rate high enough?", "cheap-draft": "Is the draft cheap enough?",
        "long-output": "Is the output long enough?" };
      var rows = v.checks.map(function (ch) {
        var text = (ch.passed ? "pass" : "FAIL") + ": " + ch.reason;
        return ["check-" + ch.key, questions[ch.key], text, text];
      });
      var n = v.break_even_output_length;
      return rows.concat([
        ["expected_tokens", "E[L] (tokens per round)", pyFormat(v.expected_tokens, ".3f"), v.expected_tokens],
        ["speedup", "exact speedup T0 E[L] / T_round (rule: " + pyFormat(c.constants.worth_it, "g") + ")", pyFormat(v.speedup, ".3f"), v.speedup],
        ["quick_estimate", "the source's quick estimate", pyFormat(v.quick_estimate, ".3f"), v.quick_estimate],
        ["request_speedup", "whole-request speedup (TTFT and setup included)", pyFormat(v.request_speedup, ".3f"), v.request_speedup],
        ["break_even_output_length", "speculation pays off above (output tokens)", n === Infinity ? "never" : pyFormat(n, ".1f"), n],
        ["verdict", "verdict", v.verdict, v.verdict]
      ]);
    },
    chart: null
  };

  EXPLORERS.threshold = {
    compute: function (s, c) {
      var sp = speedupFromCosts(s.alpha, s.k, s.c_draft, s.c_verify);
      return { k: s.k, c_draft: s.c_draft, c_verify: s.c_verify, alpha: s.alpha,
        break_even_alpha: breakEvenAlpha(s.k, s.c_draft, s.c_verify), round_cost: roundCost(s.k, s.c_draft, s.c_verify),
        speedup: sp, verdict: sp > 1 ? "net saving" : (sp === 1 ? "break-even" : "net loss") };
    },
    domain: function (s) { return present([verifyCostBelowOne(s.c_verify)]); },
    rows: function (v) {
      var t = v.break_even_alpha;
      return [
        ["round_cost", "round cost k c_draft + c_verify (target steps)", pyFormat(v.round_cost, ".4g"), v.round_cost],
        ["break_even_alpha", "break-even alpha (E[L] = round cost)",
          isNaN(t) ? "no alpha can win (cost >= k + 1 = " + (v.k + 1) + ")" : pyFormat(t, ".4f"), t],
        ["speedup", "speedup at the measured alpha", pyFormat(v.speedup, ".3f"), v.speedup],
        ["verdict", "verdict", v.verdict, v.verdict]
      ];
    },
    chart: function (v, c, colors) {
      var km = c.constants.k_max, parts = [], t = v.break_even_alpha;
      var need = isNaN(t) ? "no alpha can win at this k" : "it is " + pyFormat(t, ".3f") + " at k = " + v.k;
      var label = "Left: the break-even alpha against k from 1 to " + km + " at c_draft " + pyFormat(v.c_draft, ".3f") +
        " and c_verify " + pyFormat(v.c_verify, ".3f") + " (" + need + "); above the curve speculation is a net saving; the measured alpha " +
        pyFormat(v.alpha, ".2f") + " is a dashed line. Right: speedup against alpha at k = " + v.k + ", " +
        pyFormat(v.speedup, ".2f") + "x at the measured alpha: " + v.verdict + ".";
      var ks = range(1, km), be = ks.map(function (kk) { return breakEvenAlpha(kk, v.c_draft, v.c_verify); });
      var left = new Panel(parts, { x: 62, y: 26, w: 268, h: 210 }, [1, km], [0, 1.02],
        { clip: c.id + "-l", xlabel: "k (drafts per round)", ylabel: "acceptance rate alpha", xinteger: true });
      left.area(ks, be.map(function (b) { return isNaN(b) ? 1.02 : b; }), ks.map(function () { return 1.02; }),
        { fill: colors.verify, opacity: 0.15 });
      left.path(ks, be, { color: colors.target, width: 2 });
      left.path([1, km], [v.alpha, v.alpha], { color: colors.accent, width: 1.5, dash: "5,3" });
      if (!isNaN(t)) { left.circle(v.k, t, 7, { stroke: "#000", width: 1.5 }); }
      left.legend([{ label: "break-even alpha", color: colors.target }, { label: "measured alpha", color: colors.accent, dash: "5,3" },
        { label: "net saving", color: colors.verify, box: true, opacity: 0.3 }], "upper left");
      var a = linspace(0, 1, c.constants.n_points), s = a.map(function (x) { return speedupFromCosts(x, v.k, v.c_draft, v.c_verify); });
      var topS = Math.max(Math.max.apply(null, s), 1.2) * 1.08;
      var right = new Panel(parts, { x: 412, y: 26, w: 278, h: 210 }, [0, 1], [0, topS],
        { clip: c.id + "-r", xlabel: "acceptance rate alpha", ylabel: "speedup",
          title: "k = " + v.k + ", c_d = " + pyFormat(v.c_draft, ".3g") + ", c_v = " + pyFormat(v.c_verify, ".3g") +
            ", alpha = " + pyFormat(v.alpha, ".2f") });
      right.path([0, 1], [1, 1], { color: colors.baseline, width: 1 });
      right.path(a, s, { color: colors.target, width: 2 });
      if (!isNaN(t)) {
        right.path([t, t], [0, topS], { color: colors.target, width: 1, dash: "2,3" });
        right.text(Math.min(t + 0.01, 0.7), 0.05 * topS, "break-even alpha = " + pyFormat(t, ".3f"), { color: colors.target });
      }
      right.circle(v.alpha, v.speedup, 5, { fill: colors.accent });
      right.text(v.alpha, v.speedup, "  " + pyFormat(v.speedup, ".2f") + "x", { color: colors.accent, dy: -6 });
      return svgOpen(700, 280, label) + parts.join("") + "</svg>";
    }
  };

  EXPLORERS["serving-metrics"] = {
    compute: function (s) {
      var a = s.alpha, k = s.k, el = expectedTokens(a, k);
      var rate = Math.min(Math.max((el - 1.0) / k, 0.0), 1.0), length = el;
      var asWithout = length <= k ? alphaForExpectedTokens(length + 1.0, k) : NaN;
      return { alpha: a, k: k, draft_acceptance_rate: rate, length_with_bonus: length, length_without_bonus: el - 1.0,
        rate_as_alpha: rate, length_with_bonus_as_without: asWithout };
    },
    rows: function (v) {
      var m = v.length_with_bonus_as_without;
      return [
        ["draft_acceptance_rate", "draft acceptance rate (accepted / drafted)", pyFormat(v.draft_acceptance_rate, ".4f"), v.draft_acceptance_rate],
        ["length_with_bonus", "mean acceptance length, with the target's token", pyFormat(v.length_with_bonus, ".4f"), v.length_with_bonus],
        ["length_without_bonus", "mean accepted drafts per round (no bonus)", pyFormat(v.length_without_bonus, ".4f"), v.length_without_bonus],
        ["rate_as_alpha", "alpha if the rate is read as alpha", pyFormat(v.rate_as_alpha, ".4f"), v.rate_as_alpha],
        ["length_with_bonus_as_without", "alpha if the with-bonus length is read as no-bonus",
          isNaN(m) ? "none (length > k)" : pyFormat(m, ".4f"), m]
      ];
    },
    chart: function (v, c, colors) {
      var parts = [], grid = linspace(0, 1, 201), seq = c.colors.sequence;
      var label = "Left: the draft acceptance rate an engine prints against alpha for k = " +
        c.constants.left_ks.join(", ") + ", below the diagonal; at alpha " + pyFormat(v.alpha, ".2f") + " and k = " + v.k +
        " it reads " + pyFormat(v.draft_acceptance_rate, ".3f") + ". Right: the mean acceptance length against alpha at k = " + v.k +
        ", with the target's token (" + pyFormat(v.length_with_bonus, ".3f") + " here) and without it (" +
        pyFormat(v.length_without_bonus, ".3f") + ").";
      var left = new Panel(parts, { x: 62, y: 26, w: 268, h: 220 }, [0, 1], [0, 1],
        { clip: c.id + "-l", xlabel: "acceptance rate alpha", ylabel: "draft acceptance rate" });
      left.path(grid, grid, { color: colors.baseline, width: 1, dash: "5,3" });
      var items = [{ label: "alpha itself (k = 1)", color: colors.baseline, dash: "5,3" }];
      c.constants.left_ks.forEach(function (kk, j) {
        if (kk === 1) { return; }
        left.path(grid, grid.map(function (a) { return Math.min(Math.max((expectedTokens(a, kk) - 1.0) / kk, 0), 1); }),
          { color: seq[j % seq.length], width: 1.8 });
        items.push({ label: "k = " + kk, color: seq[j % seq.length] });
      });
      left.legend(items, "upper left");
      left.circle(v.alpha, v.draft_acceptance_rate, 3.5, { fill: "#000" });
      left.text(v.alpha, v.draft_acceptance_rate, pyFormat(v.draft_acceptance_rate, ".3f"), { dx: 6, dy: 14 });
      var right = new Panel(parts, { x: 412, y: 26, w: 278, h: 220 }, [0, 1], [0, v.k + 1.2],
        { clip: c.id + "-r", xlabel: "acceptance rate alpha", ylabel: "mean acceptance length", title: "k = " + v.k });
      var el = grid.map(function (a) { return expectedTokens(a, v.k); });
      right.path(grid, el, { color: colors.target, width: 2 });
      right.path(grid, el.map(function (x) { return x - 1.0; }), { color: colors.draft, width: 2, dash: "7,3,2,3" });
      [v.length_with_bonus, v.length_without_bonus].forEach(function (y) {
        right.circle(v.alpha, y, 3.5, { fill: "#000" });
        right.text(v.alpha, y, pyFormat(y, ".3f"), { dx: -42, dy: -5 });
      });
      right.legend([{ label: "with the target's token, E[L]", color: colors.target },
        { label: "accepted drafts only, E[L] - 1", color: colors.draft, dash: "7,3,2,3" }], "upper left");
      return svgOpen(700, 290, label) + parts.join("") + "</svg>";
    }
  };

  // ------------------------------------------------------------------ building the live explorers
  var STYLE = [
    ".specdec-live-ui{border:1px solid #bbb;border-radius:4px;padding:0.6em 0.8em;margin:0.5em 0}",
    ".specdec-live-ui .specdec-live-controls{display:grid;grid-template-columns:repeat(auto-fill,minmax(19em,1fr));gap:0.35em 1.6em}",
    ".specdec-live-ui label{display:flex;align-items:center;gap:0.5em;min-width:0}",
    ".specdec-live-ui label>span.specdec-label{flex:0 0 9.5em;font-size:0.92em}",
    ".specdec-live-ui input[type=range]{flex:1 1 auto;min-width:7em;width:100%}",
    ".specdec-live-ui output{flex:0 0 3.8em;font-family:monospace;text-align:right}",
    ".specdec-live-ui table.specdec-readout{border-collapse:collapse;margin:0.5em 0 0 0}",
    ".specdec-live-ui table.specdec-readout td{padding:1px 12px 1px 0;vertical-align:top;text-align:left}",
    ".specdec-live-ui table.specdec-readout td.specdec-num{text-align:right;font-family:monospace;white-space:nowrap}",
    ".specdec-live-ui .specdec-error{color:#D55E00}",
    ".specdec-live-ui .specdec-note{margin:0.5em 0 0;font-style:italic;color:#555;font-size:0.92em}",
    ".specdec-live-ui svg{background:#fff;color:#222}"      /* like the figures' PNGs, also under a dark theme */
  ].join("\n");

  function addStyle() {
    if (document.getElementById("specdec-live-style")) { return; }
    var el = document.createElement("style");
    el.id = "specdec-live-style";
    el.textContent = STYLE;
    document.head.appendChild(el);
  }

  var counter = 0;
  var REFUSED_LABEL = "outside the model";     // specdec.widgets._base.REFUSED_LABEL

  function build(root) {
    var config = JSON.parse(root.getAttribute("data-config"));
    var impl = EXPLORERS[config.explorer];
    if (!impl) { return; }
    counter += 1;
    config.id = "specdec-live-" + counter;
    var colors = config.colors.named, state = {}, inputs = {};
    config.controls.forEach(function (spec) { state[spec.name] = spec.value; });
    root.textContent = "";
    root.classList.add("specdec-live-ui");
    root.removeAttribute("style");
    var controls = document.createElement("div");
    controls.className = "specdec-live-controls";
    config.controls.forEach(function (spec) {
      var label = document.createElement("label"), name = document.createElement("span"), out = document.createElement("output");
      name.className = "specdec-label";
      name.textContent = spec.label;
      var input = document.createElement("input");
      input.type = "range";
      input.min = String(spec.min); input.max = String(spec.max); input.step = String(spec.step);
      input.value = String(spec.value);
      input.name = spec.name;
      input.setAttribute("aria-label", spec.label);
      input.setAttribute("data-control", spec.name);
      out.textContent = pyFormat(spec.value, spec.format);
      input.addEventListener("input", function () {
        var x = parseFloat(input.value);
        state[spec.name] = spec.kind === "int" ? Math.round(x) : x;
        out.textContent = pyFormat(state[spec.name], spec.format);
        render();
      });
      label.appendChild(name); label.appendChild(input); label.appendChild(out);
      controls.appendChild(label);
      inputs[spec.name] = input;
    });
    var body = document.createElement("div"), figure = document.createElement("div"), note = document.createElement("p");
    note.className = "specdec-note";
    note.textContent = config.note;
    root.appendChild(controls); root.appendChild(body); root.appendChild(figure); root.appendChild(note);

    function render() {
      var v, refused;
      try {
        refused = impl.domain ? impl.domain(state, config) : [];
        v = refused.length ? null : impl.compute(state, config);
      } catch (err) {
        root.setAttribute("data-error", err.message);
        body.innerHTML = '<p class="specdec-error"></p>';
        body.firstChild.textContent = err.message;
        figure.innerHTML = "";
        return;
      }
      root.removeAttribute("data-error");
      // outside the model's domain: the warnings instead of the read-out, and no chart (as specdec.widgets)
      var rows = refused.length ? refused.map(function (text, i) { return ["refused-" + (i + 1), REFUSED_LABEL, text, text]; })
        : impl.rows(v, config);
      var html = '<table class="specdec-readout">';
      rows.forEach(function (r) {
        var number = /^[-+]?[0-9.]/.test(String(r[2])) && String(r[2]).length <= 32;   // as specdec.widgets' read-out
        html += "<tr><td>" + esc(r[1]) + '</td><td class="' + (number ? "specdec-num" : "") + '" data-key="' + esc(r[0]) +
          '" data-value="' + esc(String(r[3])) + '">' + esc(r[2]) + "</td></tr>";
      });
      body.innerHTML = html + "</table>";
      figure.innerHTML = impl.chart && !refused.length ? impl.chart(v, config, colors) : "";
      if (refused.length) { root.setAttribute("data-refused", String(refused.length)); } else { root.removeAttribute("data-refused"); }
      root.setAttribute("data-renders", String((parseInt(root.getAttribute("data-renders") || "0", 10)) + 1));
    }
    render();
    root.setAttribute("data-live", "ready");
  }

  function start() {
    addStyle();
    Array.prototype.forEach.call(document.querySelectorAll(".specdec-explorer.specdec-live[data-config]"), function (root) {
      if (root.getAttribute("data-live") === "ready") { return; }
      try {
        build(root);
      } catch (err) {
        root.setAttribute("data-live", "failed");
        if (window.console) { window.console.error("specdec-live: " + err.message); }
      }
    });
  }

  window.specdecLive = { pyFormat: pyFormat, expectedTokens: expectedTokens, breakEvenAlpha: breakEvenAlpha,
    alphaForExpectedTokens: alphaForExpectedTokens, assess: assess, explorers: EXPLORERS, start: start };
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", start); } else { start(); }
})();
