// Misty hills at dawn: a warm sky, three grey-green ranges fading into mist, a pale sun.
function setup() {
  createCanvas(600, 600, WEBGL);
  noLoop();
}

function wash(col, op, bleed, tex, border) {
  brush.fill(col, op);
  brush.fillBleed(bleed);
  brush.fillTexture(tex, border);
}

function poly(pts, curv) {
  brush.beginShape(curv);
  for (const p of pts) brush.vertex(p[0], p[1]);
  brush.endShape(CLOSE);
}

function hill(y, amp, seed) {
  const pts = [[-20, 620]];
  for (let k = 0; k <= 6; k++) pts.push([k * 106 - 20, y - amp * noise(seed + k * 0.6)]);
  pts.push([620, 620]);
  return pts;
}

function draw() {
  translate(-width / 2, -height / 2);
  background(250, 246, 238);
  noiseSeed(5);
  brush.noStroke();
  wash("#f9d7b5", 160, 0.5, 0.5, 0.6);
  poly([[0, 0], [600, 0], [600, 300], [0, 300]], 0.5);
  wash("#fff2d6", 220, 0.3, 0.4, 0.5);
  brush.circle(200, 180, 50);
  const cols = ["#c7cdd6", "#9fb0ad", "#6f8c7c"];
  for (let i = 0; i < 3; i++) {
    wash(cols[i], 185 + i * 15, 0.45 - i * 0.08, 0.5, 0.6);
    poly(hill(300 + i * 90, 120 - i * 25, i * 7), 0.8);
    wash("#f6efe6", 150, 0.5, 0.5, 0.6);
    poly([[0, 330 + i * 90], [600, 320 + i * 90], [600, 345 + i * 90], [0, 352 + i * 90]], 0.7);
  }
  wash("#3f5e4c", 200, 0.3, 0.5, 0.6);
  for (let k = 0; k < 5; k++) brush.circle(420 + k * 28, 520 - k * 6, 16);
}
